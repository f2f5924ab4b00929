// Finding what Bokeh and Panel draw on the page: each component draws inside
// its own open shadow root, where document.querySelector does not look, and a
// Bokeh model is drawn by a view that BokehJS's index knows.

/** The first element under `root` that matches `selector`, open shadow roots included (tree order). */
export function deepQuery(root, selector) {
  const hit = root.querySelector(selector);
  if (hit) return hit;
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) {
      const inner = deepQuery(el.shadowRoot, selector);
      if (inner) return inner;
    }
  }
  return null;
}

/** Every element under `root` that matches `selector`, open shadow roots included. */
export function deepQueryAll(root, selector, found = []) {
  for (const el of root.querySelectorAll(selector)) found.push(el);
  for (const el of root.querySelectorAll("*")) if (el.shadowRoot) deepQueryAll(el.shadowRoot, selector, found);
  return found;
}

/**
 * The view that draws model `model` on the page, if it is drawn (else null):
 * BokehJS's view on a Bokeh page; on a student page (web/native.js) the
 * model's own element, as `el`, `shadow_el` and (a box's) `input_el`.
 */
export function viewOf(model) {
  if (model && model.el instanceof Element) {
    return {el: model.el, shadow_el: model.el, input_el: model.el.querySelector("input")};
  }
  const index = typeof window !== "undefined" && window.Bokeh && window.Bokeh.index;
  return index && typeof index.find_one === "function" ? index.find_one(model) : null;
}
