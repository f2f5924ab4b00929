// An explorable mounted in an author's page: in an open shadow root of its
// host element, with its own styles, so that the host page's styles and
// scripts (its own Bokeh, MathJax or KaTeX) neither reach it nor are reached
// by it. Used by the <attention-explorable> element (web/element.js), which
// the one-tag embed (embed/NAME.js) puts in the page.
import {startQuery} from "./links.js";
import {mount, readSpec} from "./native.js";
import {watchTheme} from "./theme.js";


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
