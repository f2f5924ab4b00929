// An explorable mounted in an author's page: in an open shadow root of its
// host element, with its own styles, so that the host page's styles and
// scripts (its own Bokeh, MathJax or KaTeX) neither reach it nor are reached
// by it. Used by the one-script embed (embed/NAME.js) and by the
// <attention-explorable> element (web/element.js).
import {mount} from "./native.js";

const revive = (key, value) => (value && typeof value === "object" && "$num" in value ? Number(value.$num) : value);

/**
 * The query an explorable of this page opens on: `initial` (the author's
 * markup, its parameters behind the explorable's prefix), then, only with deep
 * links, the host page's own address, which wins.
 * @param {object} link the explorable's link spec (views.links)
 * @param {Object<string, string>} initial parameter name -> raw value, as written by the author
 * @param {boolean} deepLinks whether the host's address is read and written
 * @returns {string}
 */
export function startQuery(link, initial, deepLinks) {
  const params = new URLSearchParams();
  for (const [name, raw] of Object.entries(initial || {})) params.set((link.prefix || "") + name, raw);
  if (deepLinks) for (const [key, raw] of new URLSearchParams(window.location.search)) params.set(key, raw);
  return params.toString();
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
 * @param {{deepLinks?: boolean, initial?: Object<string, string>}} options
 *   whether the host page's address is the explorable's (read and followed), and the author's initial state
 * @returns {Promise<Map<string, object>>} the models, once mounted
 */
export function mountShadow(host, shell, spec, {deepLinks = false, initial = {}} = {}) {
  host.lang = shell.lang;
  addMathFont(shell.math_font);
  const root = host.shadowRoot || host.attachShadow({mode: "open"});
  const style = document.createElement("style");
  style.textContent = shell.css;
  root.replaceChildren(style, document.createRange().createContextualFragment(shell.html));
  const own = JSON.parse(JSON.stringify(spec), revive);
  for (const cb of Object.values(own.callbacks)) {
    const config = cb.args && cb.args.config;
    if (!config || !config.link) continue;
    // The host page's address is the author's: read and followed only when the markup asks (deep links);
    // otherwise the explorable's parameters are the markup's, by their own names (a notice says step="9").
    if (!deepLinks) config.link.prefix = "";
    config.link.query = startQuery(config.link, initial, deepLinks);
    config.link.follow = deepLinks;
  }
  const more = Object.entries(shell.modules || {}).map(async ([name, code]) => [name,
    (await import(URL.createObjectURL(new Blob([code], {type: "text/javascript"})))).default]);
  return Promise.all(more).then((extra) => mount(own, {...window.aeModules, ...Object.fromEntries(extra)}, root));
}
