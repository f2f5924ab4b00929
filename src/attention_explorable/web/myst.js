// The anywidget front-end module that MyST's {anywidget} directive loads (Jupyter Book 2, mystmd sites):
// it puts an <attention-explorable> into the widget's element, so that a MyST page gets the same explorable
// as a tag in any page (web/element.js), its events included. The export writes it as embed/myst.mjs,
// beside the element's data; the script that defines the element (attention-explorable.js, in the folder
// above) is loaded once per page, from this module's own address.
//
// The directive's JSON body is the element's markup: {"name": "steps", "lang": "en", "theme": "auto",
// "attributes": {"step": 2}} (docs/embedding.md). Nothing in it is read as HTML: each is an attribute.

const ELEMENT_SCRIPT = "../attention-explorable.js";
let loading = null;

/** Load the element's script once (nothing when another tag of the page defined the element already). */
function defineElement(src) {
  if (customElements.get("attention-explorable")) return Promise.resolve();
  loading = loading || new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.addEventListener("load", () => resolve());
    script.addEventListener("error", () => reject(new Error(`attention explorable: ${src} did not load`)));
    document.head.append(script);
  });
  return loading;
}

/** The element the directive's JSON describes: its name, language and theme, and its attributes. */
export function elementOf(model) {
  const tag = document.createElement("attention-explorable");
  for (const key of ["name", "lang", "theme"]) {
    const value = model.get(key);
    if (value !== undefined && value !== null) tag.setAttribute(key, String(value));
  }
  const attributes = model.get("attributes");
  if (attributes && typeof attributes === "object") {
    for (const [key, value] of Object.entries(attributes)) tag.setAttribute(key, String(value));
  }
  return tag;
}

async function mount({model, el}) {
  const tag = elementOf(model);
  await defineElement(new URL(ELEMENT_SCRIPT, import.meta.url).href);
  el.append(tag);
  return () => tag.remove();
}

export default {render: mount};
