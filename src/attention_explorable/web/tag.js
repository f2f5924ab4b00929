// The one-tag embed (embed/NAME.js, written by native.embed_script): where
// its <script> tag stands it puts an <attention-explorable> element in the
// export's language, and loads the element's script (attention-explorable.js,
// one folder up from its own address) unless the page has it already. The
// element draws the explorable from its data beside the tag's file
// (embed/NAME.LANG.js; web/element.js). Classic scripts only: it runs from
// file:// too.

/** Whether `script` loads the element's script (attention-explorable.js), wherever it lives. */
export const isElementScript = (script) => /attention-explorable\.js([?#]|$)/.test(script.src);

/**
 * Put `<attention-explorable name lang>` before the tag that loaded this script.
 * @param {HTMLScriptElement|null} script the tag running now (`document.currentScript`); null when
 *   loaded as a module, then the first tag of `embed/NAME.js` not yet used
 * @param {{name: string, lang: string}} options the explorable and its language ("zh-Hans", "en")
 * @returns {HTMLElement|null} the element put in the page, or null if the tag was already used
 */
export function placeTag(script, {name, lang}) {
  const path = `embed/${name}.js`;
  const here = script || [...document.querySelectorAll("script[src]")]
    .find((s) => s.src.split(/[?#]/)[0].endsWith(path) && !s.dataset.aeUsed);
  if (!here || here.dataset.aeUsed) return null;
  here.dataset.aeUsed = "1";
  const tag = document.createElement("attention-explorable");
  tag.setAttribute("name", name);
  tag.setAttribute("lang", lang);
  tag.className = `attention-explorable attention-explorable-${name}`;
  // The host page's address is the author's: read and followed only when the tag asks.
  if (here.hasAttribute("data-deep-links")) tag.setAttribute("deep-links", "");
  if (here.getAttribute("data-theme")) tag.setAttribute("theme", here.getAttribute("data-theme"));
  here.parentNode.insertBefore(tag, here);
  if (!customElements.get("attention-explorable") && ![...document.querySelectorAll("script[src]")].some(isElementScript)) {
    const element = document.createElement("script");
    element.src = new URL("../attention-explorable.js", here.src).href;
    document.head.append(element);
  }
  return tag;
}
