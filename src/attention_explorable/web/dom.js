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

const scratch = typeof document !== "undefined" ? document.createElement("template") : null;

function sameAttributes(old, fresh) {
  const attributes = fresh.attributes, n = attributes.length;
  for (let i = 0; i < n; i++) {
    const {name, value} = attributes[i];
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  // (old now has every attribute of fresh: it has no other when it has as many)
  if (old.attributes.length !== n) {
    for (const name of old.getAttributeNames()) if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  }
}

// Walked sibling by sibling, with no array of the children made: a move's morph is mostly this walk.
function sameChildren(old, fresh) {
  let was = old.firstChild, node = fresh.firstChild;
  while (node) {
    const next = node.nextSibling;
    if (!was) {
      old.appendChild(node);
    } else if (was.nodeType !== node.nodeType || was.nodeName !== node.nodeName) {
      const after = was.nextSibling;
      old.replaceChild(node, was);
      was = after;
      node = next;
      continue;
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      if (node.attributes.length || was.attributes.length) sameAttributes(was, node);
      sameChildren(was, node);
    } else if (was.nodeValue !== node.nodeValue) {
      was.nodeValue = node.nodeValue;
    }
    was = was && was.nextSibling;
    node = next;
  }
  while (was) {
    const after = was.nextSibling;
    was.remove();
    was = after;
  }
}

/**
 * Make `el`'s content the markup `html`, keeping every node that stays where
 * it was (its attributes and text written only where they changed): a move
 * then costs the browser style and layout of what changed, not of a new tree,
 * and a focused or selected node keeps its focus or selection.
 * @param {Element} el the element whose children are replaced
 * @param {string} html its new content, as markup
 */
export function morph(el, html) {
  scratch.innerHTML = html;
  sameChildren(el, scratch.content);
  scratch.content.replaceChildren();
}

/**
 * As {@link morph}, for content made of parts that are one element each (a
 * figure's title, axes, frame and legend): a part whose markup is the same as
 * in `before` is not read again, the others are morphed into their element.
 * @param {Element} el the element whose children the parts are
 * @param {string[]} parts the new content, one element's markup per part
 * @param {string[]|null} before the parts `el` was given last (null: none)
 */
export function morphParts(el, parts, before) {
  if (!before || before.length !== parts.length || el.children.length !== parts.length) {
    morph(el, parts.join(""));
    return;
  }
  parts.forEach((part, i) => {
    if (part === before[i]) return;
    scratch.innerHTML = part;
    const fresh = scratch.content.firstElementChild, was = el.children[i];
    if (scratch.content.childNodes.length !== 1 || !fresh || fresh.nodeName !== was.nodeName) {
      was.replaceWith(...scratch.content.childNodes);
    } else {
      sameAttributes(was, fresh);
      sameChildren(was, fresh);
    }
  });
  scratch.content.replaceChildren();
}
