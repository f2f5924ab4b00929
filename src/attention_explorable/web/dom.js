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

/** The view BokehJS draws model `model` with on a live Panel page, if it is drawn (else null). */
export function viewOf(model) {
  const index = typeof window !== "undefined" && window.Bokeh && window.Bokeh.index;
  return index && typeof index.find_one === "function" ? index.find_one(model) : null;
}

/** The address's anchor (`#sec-3-8`) decoded, or "" when there is none or its %-escapes are malformed. */
export function anchorId() {
  try {
    return decodeURIComponent(window.location.hash.slice(1));
  } catch (err) {
    return "";  // a malformed %-escape names nothing
  }
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

/** Remove `node` and every sibling after it. */
function removeFrom(node) {
  while (node) {
    const next = node.nextSibling;
    node.remove();
    node = next;
  }
}

// Walked sibling by sibling, with no array of the children made: a move's morph is mostly this walk.
function sameChildren(old, fresh) {
  let was = old.firstChild, node = fresh.firstChild;
  while (node) {
    const next = node.nextSibling, after = was ? was.nextSibling : null;
    if (!was) {
      old.appendChild(node);
    } else if (was.nodeType !== node.nodeType || was.nodeName !== node.nodeName) {
      old.replaceChild(node, was);
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      if (node.attributes.length || was.attributes.length) sameAttributes(was, node);
      sameChildren(was, node);
    } else if (was.nodeValue !== node.nodeValue) {
      was.nodeValue = node.nodeValue;
    }
    was = after;
    node = next;
  }
  removeFrom(was);
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
 * A node to draw (for {@link patch}): an element's tag, its attributes and its
 * children, each a node or a string (a text).
 * @param {string} tag
 * @param {Object<string, string>} [attrs] attribute name -> value (written as it is: no markup)
 * @param {Array<object|string>} [children]
 * @returns {{tag: string, attrs: Object<string, string>, children: Array<object|string>}}
 */
export const h = (tag, attrs = {}, children = []) => ({tag, attrs, children});

const SVG = "http://www.w3.org/2000/svg";

function create(node, svg) {
  if (typeof node === "string") return document.createTextNode(node);
  const inSvg = svg || node.tag === "svg";
  const el = inSvg ? document.createElementNS(SVG, node.tag) : document.createElement(node.tag);
  for (const name in node.attrs) el.setAttribute(name, node.attrs[name]);
  for (const child of node.children) el.appendChild(create(child, inSvg));
  return el;
}

function update(el, node, old, svg) {
  const attrs = node.attrs, before = old.attrs;
  for (const name in attrs) if (attrs[name] !== before[name]) el.setAttribute(name, attrs[name]);
  for (const name in before) if (!(name in attrs)) el.removeAttribute(name);
  patch(el, node.children, old.children, svg || node.tag === "svg");
}

/**
 * Make `parent`'s children the nodes `nodes` (made by {@link h}), given that
 * they are now the nodes `old` (null: nothing of them is there yet). Only what
 * differs from `old` is written: no markup is parsed and nothing of the page is
 * read, and a node that keeps its tag stays the same element.
 * @param {Node} parent
 * @param {Array<object|string>} nodes the new children
 * @param {Array<object|string>|null} old the children as `parent` has them (from the last call)
 * @param {boolean} [svg] whether `parent` is inside an SVG element
 */
export function patch(parent, nodes, old, svg = false) {
  if (!old) {
    parent.replaceChildren(...nodes.map((n) => create(n, svg)));
    return;
  }
  let el = parent.firstChild;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i], was = old[i];
    const next = el ? el.nextSibling : null;
    if (!el) parent.appendChild(create(node, svg));
    else if (node === was) { /* the same node: nothing to write */ }
    else if (typeof node === "string" || typeof was === "string" || was === undefined || node.tag !== was.tag) {
      if (typeof node === "string" && typeof was === "string") el.nodeValue = node;
      else parent.replaceChild(create(node, svg), el);
    } else update(el, node, was, svg);
    el = next;
  }
  removeFrom(el);
}

/**
 * The embedding page's origin when an iframe's address names it (`?host=https://course.example`): the
 * frame then takes messages from that origin only and sends its own to it only; null when not named (or
 * not an address). See docs/embedding.md, "Messages between the host and the frame".
 * @param {string} search a location's query string
 * @returns {string|null}
 */
export function hostOrigin(search) {
  const named = new URLSearchParams(search).get("host");
  if (!named) return null;
  try {
    const origin = new URL(named).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/**
 * In an iframe: tell the host page the content's height whenever it changes (the message
 * web/resize.js takes). The content's own height (the body's box), not the document's scroll height,
 * which is never less than the iframe's: the iframe then shrinks with its content as well as growing.
 */
export function reportHeight() {
  let last = 0;
  const send = () => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (Math.abs(height - last) < 2) return;
    last = height;
    window.parent.postMessage({type: "attention-explorable:height", height}, hostOrigin(window.location.search) || "*");
  };
  new ResizeObserver(send).observe(document.body);
  send();
}
