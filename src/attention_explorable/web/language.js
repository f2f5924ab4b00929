// The language switch of every page (a Panel ESM component): a link to the
// same page in the other language that keeps the page's query (its deep
// link) and its anchor, and the reader's choice remembered.
//
// Served pages name their language in the query (?lang=en; the server
// builds the page in it); the pages of an exported site are files, one
// folder per language, so the link goes to the other folder's file of the
// same name. The choice is remembered in localStorage (and, served, in a
// cookie the server reads for pages opened without ?lang=): a page opened
// without ?lang= in another language than the one remembered goes to that
// language; a link with ?lang= wins and becomes the remembered choice.
// Embedded pages (?embed=1, or inside an iframe) keep the language the
// author chose and show no switch.

const KEY = "ae-lang";
const LANGUAGES = ["zh", "en"];

function remembered() {
  try {
    return window.localStorage.getItem(KEY);
  } catch (err) {
    return null;  // storage refused (privacy settings): nothing remembered
  }
}

function remember(language, served) {
  try {
    window.localStorage.setItem(KEY, language);
  } catch (err) { /* storage refused: the choice lasts this page only */ }
  if (served) document.cookie = `${KEY}=${language}; path=/; max-age=31536000; SameSite=Lax`;
}

/**
 * The address of this page in `language`: served, the same path with
 * ?lang=; static, `target` (the other folder's file) with the query minus
 * lang. The query (the explorables' state) and the anchor are kept.
 * @param {{language: string, target: string}} link
 * @param {Location} where the page's current location
 */
export function languageHref(link, where) {
  const params = new URLSearchParams(where.search);
  if (link.target) params.delete("lang");
  else params.set("lang", link.language);
  const query = params.toString();
  return (link.target || where.pathname) + (query ? "?" + query : "") + where.hash;
}

export function render({model, el}) {
  const served = !model.target;
  const query = new URLSearchParams(window.location.search);
  const embedded = query.get("embed") === "1" || window.parent !== window;
  const asked = query.get("lang");
  const other = {language: model.other, target: model.target};
  if (!embedded) {
    if (LANGUAGES.includes(asked)) {
      remember(asked, served);
      if (asked === model.other && !served) {
        window.location.replace(languageHref(other, window.location));
        return;
      }
    } else {
      const wanted = remembered();
      if (wanted === model.other) {
        window.location.replace(languageHref(other, window.location));
        return;
      }
      if (wanted === model.language && served) remember(wanted, served);  // the server reads the cookie
    }
  }
  if (embedded) {
    el.style.display = "none";
    return;
  }
  const nav = document.createElement("nav");
  nav.setAttribute("aria-label", model.nav_label);
  const link = document.createElement("a");
  link.className = "ae-language";
  link.lang = model.other_tag;
  link.hreflang = model.other_tag;
  link.textContent = model.label;
  link.title = model.hint;
  const update = () => { link.href = languageHref(other, window.location); };
  update();
  // The address follows the explorables' state: the link takes it when used.
  for (const kind of ["focus", "pointerenter", "touchstart"]) link.addEventListener(kind, update, {passive: true});
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return update();
    event.preventDefault();
    remember(model.other, served);
    window.location.assign(languageHref(other, window.location));
  });
  nav.append(link);
  el.append(nav);
}
