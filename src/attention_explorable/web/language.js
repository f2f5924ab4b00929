// The language switch of every page (attention_explorable.apps.language_switch, run by a
// CustomJS once the document is ready): the link to the same page in the other language,
// written in the page's HTML, keeps the page's query (its deep link) and its anchor, and
// the reader's choice is remembered.
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

import {hostOrigin, viewOf} from "./dom.js";

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

/** The themes the embedding page may set: "auto" follows the reader's system, as with no ?theme=. */
const FRAME_THEMES = ["light", "dark", "auto"];

/**
 * Set the page's theme (on <html>, as ?theme= does at load): "light", "dark", or "auto" (the reader's system).
 * @param {string} theme
 */
function setTheme(theme) {
  if (theme === "auto") document.documentElement.removeAttribute("data-ae-theme");
  else document.documentElement.setAttribute("data-ae-theme", theme);
}

/**
 * An embedded page takes `{type: "attention-explorable:set", lang, theme}` from the page that embeds it
 * (the window's parent only; from the origin its address names in ?host=, when it names one): a theme at
 * once, the other language by opening its page with the same query (the explorable's state is in it;
 * the theme set is kept as ?theme=). Anything else in a message is ignored.
 * @param {{language: string, target: string}} link the other language, and its file ('' when served)
 * @param {boolean} served
 */
function listenToHost(link, served) {
  const origin = hostOrigin(window.location.search);
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source !== window.parent || (origin && event.origin !== origin)) return;
    if (!data || data.type !== "attention-explorable:set") return;
    if (FRAME_THEMES.includes(data.theme)) setTheme(data.theme);
    if (data.lang !== link.language) return;
    const params = new URLSearchParams(window.location.search);
    const theme = document.documentElement.getAttribute("data-ae-theme");
    if (theme) params.set("theme", theme);
    else params.delete("theme");
    if (served) params.set("lang", link.language);
    const where = {search: "?" + params.toString(), pathname: window.location.pathname, hash: window.location.hash};
    window.location.replace(served ? where.pathname + where.search + where.hash : languageHref(link, where));
  });
}

/**
 * A page's language switch, its link `anchor` in the page: keeps the page's query and anchor in the link,
 * remembers the reader's choice, and follows a remembered choice. Embedded (?embed=1, or in an iframe),
 * `hide()` hides it; only the address's ?lang= is followed (to the other file), and nothing is remembered.
 * @param {{anchor: HTMLAnchorElement|null, hide: function(): void, language: string, other: string, target: string}} args
 *   language: the page's; other: the link's; target: the other language's file ('' when served)
 */
export function followLanguage({anchor, hide, language, other, target}) {
  const served = !target;
  const query = new URLSearchParams(window.location.search);
  const embedded = query.get("embed") === "1" || window.parent !== window;
  const asked = query.get("lang");
  const link = {language: other, target};
  if (embedded) {
    hide();
    // The embedding page may ask for a language in the frame's address (?lang=en): the other file, with
    // the rest of the query (?embed=1 too). Not remembered: an author's choice is not the reader's.
    if (asked === other && !served) window.location.replace(languageHref(link, window.location));
    else listenToHost(link, served);
    return;
  }
  if (LANGUAGES.includes(asked)) {
    remember(asked, served);
    if (asked === other && !served) {
      window.location.replace(languageHref(link, window.location));
      return;
    }
  } else {
    const wanted = remembered();
    if (wanted === other) {
      window.location.replace(languageHref(link, window.location));
      return;
    }
    if (wanted === language && served) remember(wanted, served);  // the server reads the cookie
  }
  if (!anchor) return;
  const update = () => { anchor.href = languageHref(link, window.location); };
  update();
  // The address follows the explorables' state: the link takes it when used.
  for (const kind of ["focus", "pointerenter", "touchstart"]) anchor.addEventListener(kind, update, {passive: true});
  anchor.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return update();
    event.preventDefault();
    remember(other, served);
    window.location.assign(languageHref(link, window.location));
  });
}

/**
 * The page's language switch (attention_explorable.apps.language_switch), run once the
 * document is ready: `followLanguage` on the link its Bokeh model holds.
 * @param {{host: object, language: string, other: string, target: string}} args
 *   host: the switch's Bokeh model; target: the other language's file ('' when served)
 */
export default function languageSwitch({host = null, hint = null, language, other, target}) {
  // (On a Panel page its Bokeh model `host`; on a student page its own element, `hint`: web/host.js runScripts.)
  const view = host ? viewOf(host) : null;
  const anchor = view ? view.shadow_el.querySelector("a.ae-language") : hint && hint.querySelector("a.ae-language");
  followLanguage({anchor, hide: () => { if (host) host.visible = false; else if (hint) hint.hidden = true; }, language, other, target});
}
