// The explorables' theme, light or dark, on an element: as asked, or as what shows behind it (an
// author's dark page, a notebook's dark theme), followed when the page switches. The colours of each
// are in web/theme.json (and ui.THEME, which reads it).
/**
 * WCAG 2's relative luminance of a computed CSS colour ("rgb(…)", "rgba(…)", or "color(srgb …)" with
 * channels from 0 to 1, as a color-mix() computes), or null when it is mostly transparent or not one of these.
 */
export function luminance(css) {
  const text = String(css || "");
  const m = /rgba?\(([^)]+)\)/.exec(text), srgb = /color\(srgb ([^)]+)\)/.exec(text);
  if (!m && !srgb) return null;
  let [r, g, b, a = 1] = (m || srgb)[1].split(/[ ,/]+/).filter(Boolean).map(Number);
  if (srgb) [r, g, b] = [r * 255, g * 255, b * 255];
  if (!(a >= 0.5)) return null;
  const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * Whether what shows behind `el` is dark: the theme of the nearest ancestor that has decided one
 * (data-ae-theme), else the first opaque background among its ancestors (across shadow roots), or, with none, the page's canvas (dark only where the page declares a dark
 * color-scheme and the reader's system prefers dark).
 * @param {Element} el
 * @returns {boolean}
 */
export function behindIsDark(el) {
  // A student page (templates/student.html, its <main>) is in the theme its <html> was asked for (?theme=,
  // a following frame's host), else in the reader's system's: known without reading a style, which at each
  // explorable's mount made the browser compute the whole textbook's style again (70 ms of its load).
  if (el.closest && el.closest("main.ae-student-page")) {
    const asked = document.documentElement.dataset.aeTheme;
    if (asked === "dark" || asked === "light") return asked === "dark";
    return Boolean(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }
  for (let n = el.parentElement || (el.getRootNode() && el.getRootNode().host); n;
    n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
    // An element that has decided its theme (an <attention-explorable>, whose background is transparent;
    // a page opened with ?theme=): what is inside it takes that.
    if (n.dataset && (n.dataset.aeTheme === "dark" || n.dataset.aeTheme === "light")) return n.dataset.aeTheme === "dark";
    const lum = luminance(getComputedStyle(n).backgroundColor);
    // Dark where white text is the better contrast (luminance under about 0.18).
    if (lum !== null) return lum < 0.179;
  }
  const scheme = getComputedStyle(document.documentElement).colorScheme || "";
  return /dark/.test(scheme) && !!window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
}

/** The themes an author may ask for (the element's `theme`, the snippet's `data-theme`). */
export const THEMES = ["light", "dark", "auto"];

/**
 * Set `host`'s data-ae-theme (light or dark: web/../ui.py THEME) as `asked`, or, for "auto" (also
 * when nothing is asked), as what shows behind it, again whenever the page's <html> or <body>
 * changes its attributes (a theme switch) or the reader's system changes its preference.
 * @param {HTMLElement} host
 * @param {string|null} asked "light", "dark", "auto" or null
 */
export function watchTheme(host, asked) {
  const want = asked === null || asked === undefined || asked === "" ? "auto" : String(asked).trim().toLowerCase();
  if (!THEMES.includes(want)) console.error(`attention-explorable: theme="${asked}" is none of ${THEMES.join(", ")}; auto is used.`);
  const set = () => {
    const dark = want === "dark" || (want !== "light" && behindIsDark(host));
    if (host.dataset.aeTheme !== (dark ? "dark" : "light")) host.dataset.aeTheme = dark ? "dark" : "light";
  };
  set();
  if (want === "light" || want === "dark") return;
  // A host may put the module's element in its place only after render (a notebook's output area).
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(set);
  const observer = new MutationObserver(set);
  for (const el of [document.documentElement, document.body]) if (el) observer.observe(el, {attributes: true});
  if (window.matchMedia) window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", set);
}
