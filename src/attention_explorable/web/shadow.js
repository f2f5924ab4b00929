// An explorable mounted in an author's page: in an open shadow root of its
// host element, with its own styles, so that the host page's styles and
// scripts (its own Bokeh, MathJax or KaTeX) neither reach it nor are reached
// by it. Used by the <attention-explorable> element (web/element.js), which
// the one-tag embed (embed/NAME.js) puts in the page.
import {startQuery} from "./links.js";
import {mount, readSpec} from "./native.js";


/** WCAG 2's relative luminance of a computed CSS colour ("rgb(…)" / "rgba(…)"), or null when it is mostly transparent. */
export function luminance(css) {
  const m = /rgba?\(([^)]+)\)/.exec(String(css || ""));
  if (!m) return null;
  const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
  if (!(a >= 0.5)) return null;
  const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * Whether what shows behind `el` is dark: the first opaque background among its ancestors (across
 * shadow roots), or, with none, the page's canvas (dark only where the page declares a dark
 * color-scheme and the reader's system prefers dark).
 * @param {Element} el
 * @returns {boolean}
 */
export function behindIsDark(el) {
  for (let n = el.parentElement || (el.getRootNode() && el.getRootNode().host); n;
    n = n.parentElement || (n.getRootNode() && n.getRootNode().host)) {
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
  const observer = new MutationObserver(set);
  for (const el of [document.documentElement, document.body]) if (el) observer.observe(el, {attributes: true});
  if (window.matchMedia) window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", set);
}

/**
 * The explorable's math font, added once to the host document's fonts (a
 * shadow root's own @font-face is not used by browsers); a host's policy that
 * refuses fonts leaves the browser's own math font.
 * @param {{family: string, woff2: string}|undefined} font its family name and WOFF2 bytes as base64
 */
export function addMathFont(font) {
  if (!font || !document.fonts || [...document.fonts].some((face) => face.family.replace(/"/g, "") === font.family)) return;
  try {
    const bytes = Uint8Array.from(atob(font.woff2), (c) => c.charCodeAt(0));
    const face = new FontFace(font.family, bytes, {display: "block"});
    document.fonts.add(face);
    face.load().catch(() => {});
  } catch (_) { /* no FontFace here: the browser's math font */ }
}

/**
 * Mount one explorable into a new open shadow root of `host`.
 * @param {HTMLElement} host the element that holds it (gets the shadow root)
 * @param {{name: string, lang: string, css: string, html: string, modules: object, math_font?: object}} shell
 *   what native.embed_data wrote: its styles, its elements, outside modules as text, its math font
 * @param {object} spec native.NativePage.spec() (not changed: each mount works on its own copy)
 * @param {{deepLinks?: boolean, initial?: Object<string, string>, theme?: string|null}} options
 *   whether the host page's address is the explorable's (read and followed), the author's initial
 *   state, the theme asked for (see watchTheme)
 * @returns {Promise<Map<string, object>>} the models, once mounted
 */
export function mountShadow(host, shell, spec, {deepLinks = false, initial = {}, theme = null} = {}) {
  host.lang = shell.lang;
  addMathFont(shell.math_font);
  watchTheme(host, theme);
  const root = host.shadowRoot || host.attachShadow({mode: "open"});
  const style = document.createElement("style");
  style.textContent = shell.css;
  root.replaceChildren(style, document.createRange().createContextualFragment(shell.html));
  const own = readSpec(spec);
  for (const cb of Object.values(own.callbacks)) {
    const config = cb.args && cb.args.config;
    if (!config || !config.link) continue;
    // The host page's address is the author's: read and followed only when the markup asks (deep links);
    // otherwise the explorable's parameters are the markup's, by their own names (a notice says step="9").
    if (!deepLinks) {
      config.link.prefix = "";
      // What a notice names is then an attribute of the element (step="9"), not a link's parameter.
      if (config.link.attribute_messages) config.link.messages = config.link.attribute_messages;
    }
    config.link.query = startQuery(config.link, initial, deepLinks);
    config.link.follow = deepLinks;
  }
  const more = Object.entries(shell.modules || {}).map(async ([name, code]) => [name,
    (await import(URL.createObjectURL(new Blob([code], {type: "text/javascript"})))).default]);
  return Promise.all(more).then((extra) => {
    const models = mount(own, {...window.aeModules, ...Object.fromEntries(extra)}, root);
    // An explorable written as one module (web/host.js), its link read as the spec's are, above.
    if (window.aeMountModules) window.aeMountModules(window.aeModules, root, {deepLinks, initial});
    return models;
  });
}
