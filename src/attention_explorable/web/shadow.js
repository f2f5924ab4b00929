// An explorable mounted in an author's page: in an open shadow root of its
// host element, with its own styles, so that the host page's styles and
// scripts (its own Bokeh, MathJax or KaTeX) neither reach it nor are reached
// by it. Used by the <attention-explorable> element (web/element.js), which
// the one-tag embed (embed/NAME.js) puts in the page.
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
 *   what native.embed_data wrote: its styles, its elements (the module's element and state), the modules
 *   of explorables registered from outside the package as text, its math font
 * @param {{deepLinks?: boolean, initial?: Object<string, string>, theme?: string|null}} options
 *   whether the host page's address is the explorable's (read and followed), the author's initial
 *   state (the element's attributes), the theme asked for (see watchTheme)
 * @returns {Promise<Map<string, object>>} its modules' models by name, once rendered
 */
export async function mountShadow(host, shell, {deepLinks = false, initial = {}, theme = null} = {}) {
  host.lang = shell.lang;
  addMathFont(shell.math_font);
  watchTheme(host, theme);
  const root = host.shadowRoot || host.attachShadow({mode: "open"});
  const style = document.createElement("style");
  style.textContent = shell.css;
  root.replaceChildren(style, document.createRange().createContextualFragment(shell.html));
  const modules = {...window.aeModules};
  for (const [name, code] of Object.entries(shell.modules || {})) {
    const url = URL.createObjectURL(new Blob([code], {type: "text/javascript"}));
    try {
      modules[name] = (await import(url)).default;
    } finally {
      URL.revokeObjectURL(url);
    }
  }
  // Its link read from the element's attributes (the host's address only with deep links): web/host.js.
  window.aeMountModules(modules, root, {deepLinks, initial});
  return new Map([...root.querySelectorAll("[data-ae-render]")].map((el) => [el.dataset.aeRender, el.aeModel]));
}
