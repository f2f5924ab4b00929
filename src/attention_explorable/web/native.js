// The student page's runtime: the explorables' modules run on the page's own
// elements, with no BokehJS. The page holds each control, readout and figure
// as HTML (attention_explorable/native.py) and a JSON spec of the models the
// modules know: the same names and properties as on a live Bokeh page (the
// state model, sources, ranges, axes, sliders, boxes, buttons, readouts). Here
// each model is a small object whose properties write its element (a slider's
// value, a readout's text, a figure redrawn by web/svg.js) and whose changes
// and events run the modules' callbacks, as BokehJS runs a CustomJS: a change
// of a property calls them with (args, model), an event with (args, event), the
// document's document_ready with (args, document, event).
import {anchorId, morph, patch} from "./dom.js";
import {valueText} from "./shared.js";
import {figureNodes, scales} from "./svg.js";

const unescapeHtml = (s) => String(s).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"")
  .replace(/&#x27;|&#39;/g, "'").replace(/&amp;/g, "&");

/** Whether two property values are the same (BokehJS's is_equal, for the values pages hold). */
export function same(a, b) {
  if (a === b || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (a instanceof Map || b instanceof Map) {
    const ma = a instanceof Map ? a : new Map(Object.entries(a || {}));
    const mb = b instanceof Map ? b : new Map(Object.entries(b || {}));
    if (ma.size !== mb.size) return false;
    for (const [k, v] of ma) if (!same(v, mb.get(k))) return false;
    return true;
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    if (Array.isArray(a) !== Array.isArray(b) && !(ArrayBuffer.isView(a) || ArrayBuffer.isView(b))) return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => same(a[k], b[k]));
  }
  return false;
}

// The properties BokehJS keeps as a Map (a Dict property): a tick's label by its number, attributes by name.
const MAPS = new Set(["major_label_overrides", "html_attributes"]);
const asMap = (value) => (value instanceof Map || !value ? value : new Map(Object.entries(value).map(
  ([k, v]) => [k.trim() !== "" && Number.isFinite(Number(k)) ? Number(k) : k, v])));

/** A model of the page: its properties, its element, its listeners. */
export class Model {
  constructor(id, type, props) {
    this.id = id;
    this.type = type;
    this._props = {};
    this._listeners = new Map();
    for (const [name, value] of Object.entries(props || {})) {
      this._define(name);
      this._props[name] = MAPS.has(name) ? asMap(value) : value;
    }
  }

  _define(name) {
    if (Object.prototype.hasOwnProperty.call(this, name)) return;
    Object.defineProperty(this, name, {get: () => this._props[name], set: (v) => this.setv({[name]: v}),
                                       enumerable: true, configurable: true});
  }

  /** Set several properties at once: each that changed is written, then its listeners run. */
  setv(changes) {
    const changed = [];
    for (const [name, value] of Object.entries(changes)) {
      this._define(name);
      if (!same(this._props[name], value)) {
        this._props[name] = value;
        changed.push(name);
      }
    }
    if (!changed.length) return;
    for (const name of changed) this.apply(name, this._props[name]);
    for (const name of changed) this.emit(`change:${name}`, this);
    this.emit("change", this);
  }

  on(event, fn) {
    if (!this._listeners.has(event)) this._listeners.set(event, []);
    this._listeners.get(event).push(fn);
  }

  emit(event, obj, data) {
    for (const fn of this._listeners.get(event) || []) fn(obj, data);
  }

  /** An event of this model (a click, a tap): its listeners get `{event_name, origin: model, ...fields}`. */
  trigger(name, fields = {}) {
    this.emit(name, {event_name: name, origin: this, ...fields});
  }

  /** The element that draws this model; its present properties are written into it. */
  bind(el) {
    this.el = el;
    this.attach(el);
  }

  attach() {}

  apply(name, value) {
    if (name === "visible" && this.el) this.el.hidden = !value;
  }
}


class Slider extends Model {
  attach(el) {
    this._input = el.querySelector("input[type=range]");
    this._label = el.querySelector("label");
    const moved = () => this.setv({value: Number(this._input.value)});
    this._input.addEventListener("input", moved);
    // A key pressed on the handle while the page was still being read moved it already: it counts.
    if (Number(this._input.value) !== this.value) moved();
  }

  apply(name, v) {
    super.apply(name, v);
    if (!this._input) return;
    if (name === "value") {
      if (Number(this._input.value) !== v) this._input.value = String(v);
      this._input.setAttribute("aria-valuetext", valueText(v));
    } else if (["start", "end", "step"].includes(name)) {
      this._input.setAttribute({start: "min", end: "max", step: "step"}[name], String(v));
    } else if (name === "title" && this._label) this._label.textContent = `${v}:`;
    else if (name === "disabled") this._input.disabled = Boolean(v);
  }
}

class TextInput extends Model {
  attach(el) {
    this._input = el.querySelector("input, textarea");
    this._label = el.querySelector("label");
    const commit = () => this.setv({value_input: this._input.value, value: this._input.value});
    this._input.addEventListener("input", () => this.setv({value_input: this._input.value}));
    this._input.addEventListener("change", commit);
    if (this._input.tagName === "TEXTAREA") return;  // Enter there is a new line
    // Enter commits and submits, as Bokeh's box says with its value_submit event.
    this._input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      commit();
      this.trigger("value_submit", {value: this._input.value});
    });
  }

  apply(name, v) {
    super.apply(name, v);
    if (!this._input) return;
    if (name === "value" && this._input.value !== v) this._input.value = v ?? "";
    else if (name === "placeholder") this._input.placeholder = v ?? "";
    else if (name === "title" && this._label) this._label.textContent = v ?? "";
    else if (name === "disabled") this._input.disabled = Boolean(v);
  }
}

const BUTTON_TYPES = {primary: "ae-n-primary", success: "ae-n-success"};

class Button extends Model {
  attach(el) {
    this._button = el.querySelector("button");
    this._button.addEventListener("click", () => this.trigger("button_click"));
  }

  apply(name, v) {
    super.apply(name, v);
    if (!this._button) return;
    if (name === "label") this._button.textContent = v;
    else if (name === "button_type") this._button.className = BUTTON_TYPES[v] || "";
    else if (name === "disabled") this._button.disabled = Boolean(v);
  }
}

class RadioButtonGroup extends Model {
  attach(el) {
    el.addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button || button.disabled) return;
      this.setv({active: Array.prototype.indexOf.call(el.children, button)});
    });
  }

  apply(name, v) {
    super.apply(name, v);
    const el = this.el;
    if (!el) return;
    if (name === "labels") {
      while (el.children.length > v.length) el.lastElementChild.remove();
      while (el.children.length < v.length) {
        const b = document.createElement("button");
        b.type = "button";
        el.append(b);
      }
      v.forEach((label, i) => { el.children[i].textContent = label; });
      this.apply("active", this.active);
    } else if (name === "active") {
      Array.from(el.children).forEach((b, i) => b.setAttribute("aria-pressed", String(i === v)));
    } else if (name === "disabled") {
      for (const b of el.children) b.disabled = Boolean(v);
    } else if (name === "html_attributes") {
      const entries = v instanceof Map ? [...v] : Object.entries(v || {});
      for (const [key, value] of entries) el.setAttribute(key, value);
    }
  }
}

/** Radio buttons, one of which may be chosen (`active`: its index, or null for none). */
class RadioGroup extends Model {
  attach(el) {
    el.addEventListener("change", (event) => {
      if (event.target.type === "radio" && event.target.checked) this.setv({active: Number(event.target.value)});
    });
  }

  apply(name, v) {
    super.apply(name, v);
    if (!this.el) return;
    const radios = this.el.querySelectorAll("input[type=radio]");
    if (name === "active") radios.forEach((r, i) => { r.checked = i === v; });
    else if (name === "disabled") radios.forEach((r) => { r.disabled = Boolean(v); });
  }
}

class Checkbox extends Model {
  attach(el) {
    this._input = el.querySelector("input");
    this._label = el.querySelector("label");
    this._input.addEventListener("change", () => this.setv({active: this._input.checked}));
  }

  apply(name, v) {
    super.apply(name, v);
    if (!this._input) return;
    if (name === "active") this._input.checked = Boolean(v);
    else if (name === "disabled") this._input.disabled = Boolean(v);
    else if (name === "label" && this._label) this._label.textContent = v;
  }
}

class HTML extends Model {
  apply(name, v) {
    super.apply(name, v);
    if (name === "text" && this.el) morph(this.el, unescapeHtml(v ?? ""));
  }
}

/** Pixels a pointer may move and still tap. */
const TAP_SLOP = 6;

class Plot extends Model {
  // What a figure is made of, as BokehJS's figure names it (for code that reads a page's models).
  get renderers() {
    return this.spec.renderers.map((r) => ({data_source: this.get(r.source), visible: r.visible}));
  }

  get title() { return this.spec.title ? this.get(this.spec.title) : null; }

  _axes(side) {
    return [this.spec.x_axis, this.spec.y_axis].filter((a) => a && a.side === side).map((a) => this.get(a.model));
  }

  get above() { return this._axes("above"); }

  get below() { return this._axes("below"); }

  get left() { return this._axes("left"); }

  get right() { return this._axes("right"); }

  /** The figure's two dimensions as drawn now: `fraction(value)` along each, `value(fraction)`. */
  scales() { return scales(this.spec, this.get); }

  /** The figure spec and the page's models: it redraws (once per burst) when any model it draws changes. */
  watch(spec, get, refs) {
    this.spec = spec;
    this.get = get;
    const soon = () => {
      if (this._soon) return;
      this._soon = true;
      queueMicrotask(() => { this._soon = false; this.render(); });
    };
    for (const ref of refs) get(ref).on("change", soon);
  }

  attach(el) {
    if (this.spec) this.render();
    if (this.spec && (this.spec.tap || this.spec.drag)) this._pointer(el);
  }

  apply(name, value) {
    super.apply(name, value);
    if (name === "visible" && value) this.render();
  }

  // A hidden figure is not drawn (nothing of it is on the page) until it is shown.
  render() {
    if (!this.el || !this.spec || this.visible === false) {
      if (this.el && this._cells) this.el.replaceChildren();
      if (this.el) this.el.removeAttribute("aria-label");  // hidden: no name (its title may be an answer)
      this._cells = this._css = this._title = null;
      return;
    }
    const {cells, style, title} = figureNodes(this.spec, this.get);
    const height = (this.spec.match_aspect ? "" : `height:${this.spec.height}px;`) + (this.spec.max_width ? `max-width:${this.spec.max_width}px;` : "");
    const css = height + style;
    if (css !== this._css) this.el.style.cssText = this._css = css;
    patch(this.el, cells, this._cells);
    this._cells = cells;
    if (title && title !== this._title) this.el.setAttribute("aria-label", this._title = title);
  }

  // A tap gives the figure a `tap` event at its data coordinates; with a dragged source
  // (PointDrawTool's), a drag moves its point and the source says `change`, as Bokeh's tool does.
  _pointer(el) {
    let start = null;
    const place = (event) => {
      const {rect} = start;
      const fx = (event.clientX - rect.left) / rect.width, fy = 1 - (event.clientY - rect.top) / rect.height;
      const {x, y} = scales(this.spec, this.get);
      return {x: x.value(fx), y: y.value(fy), sx: event.clientX - rect.left, sy: event.clientY - rect.top};
    };
    el.addEventListener("pointerdown", (event) => {
      const frame = el.querySelector(".ae-pic-frame");
      if (!frame || !frame.contains(event.target) || event.button > 0) return;
      start = {rect: frame.getBoundingClientRect(), x: event.clientX, y: event.clientY, moved: false};
      if (this.spec.drag) el.setPointerCapture(event.pointerId);
    });
    // While a point is dragged its source's selection holds it; the drop empties the selection.
    const selection = (source, indices) => { if (source.selected) source.selected.setv({indices}); };
    el.addEventListener("pointermove", (event) => {
      if (!start) return;
      if (!start.moved && Math.hypot(event.clientX - start.x, event.clientY - start.y) > TAP_SLOP) {
        start.moved = true;
        if (this.spec.drag) selection(this.get(this.spec.drag), [0]);
      }
      if (start.moved && this.spec.drag) {
        const source = this.get(this.spec.drag), p = place(event);
        source.setv({data: {...source.data, x: [p.x], y: [p.y]}});
      }
    });
    const end = (event) => {
      if (!start) return;
      const tapped = !start.moved && event.type === "pointerup";
      const p = tapped ? place(event) : null;
      const dragged = start.moved && this.spec.drag;
      start = null;
      if (dragged) {
        const source = this.get(this.spec.drag);
        selection(source, []);
        source.emit("change", source);
      }
      if (tapped && this.spec.tap) this.trigger("tap", p);
    };
    el.addEventListener("pointerup", end);
    el.addEventListener("pointercancel", end);
  }
}

const TYPES = {Slider, TextInput, TextAreaInput: TextInput, Button, RadioButtonGroup, RadioGroup, Checkbox, HTML, Plot};

/** `value` with each `{$ref: id}` in it the model `get` gives; the ids met are added to `refs`. */
function resolve(value, get, refs = []) {
  if (Array.isArray(value)) return value.map((v) => resolve(v, get, refs));
  if (value && typeof value === "object") {
    if ("$ref" in value) {
      refs.push(value.$ref);
      return get(value);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, get, refs)]));
  }
  return value;
}

function figureRefs(spec) {
  const refs = [spec.x.range, spec.y.range];
  if (spec.title) refs.push(spec.title);
  for (const axis of [spec.x_axis, spec.y_axis]) if (axis) refs.push(axis.model);
  for (const r of spec.renderers) refs.push(r.source);
  for (const a of spec.annotations) if (a.source) refs.push(a.source);
  return refs;
}

/**
 * A spec as native.spec_json wrote it, parsed: each number JSON cannot hold
 * (written `{"$num": "NaN"}`, its path listed under `$nums`) made the number
 * again, the rest of the spec not visited.
 * @param {string|object} spec its JSON text, or an object of that shape (copied first)
 * @returns {object} the spec
 */
export function readSpec(spec) {
  const out = JSON.parse(typeof spec === "string" ? spec : JSON.stringify(spec));
  for (const path of out.$nums || []) {
    let at = out;
    for (const key of path.slice(0, -1)) at = at[key];
    const last = path[path.length - 1];
    at[last] = Number(at[last].$num);
  }
  delete out.$nums;
  return out;
}

/** A part of a long page (the textbook): each block of a section, brought to life on its own. */
export const PART = ".ae-section > *";

// What a reader does to a part first: met by the document before the part's own elements.
const FIRST_TOUCH = ["focus", "focusin", "pointerdown", "mousedown", "touchstart", "keydown", "input", "click"];

/**
 * Bring the page to life: make its models, bind them to their elements, draw
 * its figures, wire the modules' callbacks, and run those of the document's
 * `document_ready`.
 *
 * With `parts` (a selector: {@link PART} on the textbook), the page's parts
 * come to life one task each, so that a key pressed on the first is answered
 * without waiting for the rest: at once, what lies outside every part, the
 * first part that runs a callback, and the part of the address's anchor; then
 * the others in the page's order. A part a reader touches first (a focus, a
 * press, a click) comes to life at once, before the event reaches its element.
 * A callback belongs to the part holding every element its arguments name; one
 * naming elements of several parts runs at once, after those parts came to life.
 * @param {{models: object, callbacks: object, document: object}} spec native.NativePage.spec()
 * @param {Object<string, function>} modules module name -> its default export
 * @param {ParentNode} root where the page's elements are
 * @param {{parts?: string, done?: function(): void}} [options] the parts' selector; what to call
 *   once the whole page is live (at once without parts)
 * @returns {Map<string, Model>} the models by id
 */
export function mount(spec, modules, root = document, {parts = null, done = () => {}} = {}) {
  const models = new Map();
  let running = null;  // the callback running now: {id, changed}
  const get = (ref) => models.get(ref.$ref);
  for (const [id, m] of Object.entries(spec.models)) models.set(id, new (TYPES[m.type] || Model)(id, m.type, m.props));
  for (const [id, m] of Object.entries(spec.models)) {
    const model = models.get(id);
    for (const [name, value] of Object.entries(m.props || {})) {  // a property naming a model (a selection)
      if (value && typeof value === "object" && "$ref" in value) model._props[name] = get(value);
    }
    if (m.figure) model.watch(m.figure, get, figureRefs(m.figure));
  }
  const callbacks = {}, refs = {};  // refs: the ids of the models each callback's arguments name
  for (const [id, cb] of Object.entries(spec.callbacks)) {
    const fn = modules[cb.module];
    if (typeof fn !== "function") {
      console.error(`attention explorable: the page has no module ${cb.module}`);
      continue;
    }
    const args = resolve(cb.args, get, refs[id] = []);
    callbacks[id] = (obj, data) => {
      const outer = running;
      running = {id, changed: new Set()};
      try { fn(args, obj, data || {}, running); } catch (err) { console.error(`attention explorable (${cb.module}):`, err); }
      finally { running = outer; }
    };
  }
  // As BokehJS's CustomJS: a callback runs after the change that calls it, not inside it; a burst of
  // changes to one model runs it once. Unlike BokehJS, what a callback changes itself does not call it
  // back (its run's `changed` lists those models): one key press is one run of the module.
  const queued = new Set();
  for (const [id, m] of Object.entries(spec.models)) {
    const model = models.get(id);
    for (const [event, ids] of Object.entries(m.on || {})) {
      const change = event.startsWith("change");
      for (const cid of ids) {
        if (!callbacks[cid]) continue;
        const key = `${cid} ${id}`;
        model.on(event, (obj, data) => {
          if (running && running.id === cid) return void running.changed.add(model);
          if (change && queued.has(key)) return;
          if (change) queued.add(key);
          queueMicrotask(() => {
            if (change) queued.delete(key);
            callbacks[cid](obj, data);
          });
        });
      }
    }
  }
  // Each element and each document_ready callback in its part (null: the page's own).
  const elements = [...root.querySelectorAll("[data-ae-model]")];
  const partOf = (el) => (parts ? el.closest(parts) : null);
  const groups = new Map([[null, {elements: [], ready: []}]]);
  const group = (part) => {
    if (!groups.has(part)) groups.set(part, {elements: [], ready: []});
    return groups.get(part);
  };
  const byId = new Map();
  for (const el of elements) {
    byId.set(el.dataset.aeModel, el);
    group(partOf(el)).elements.push(el);
  }
  // A callback naming elements of several parts runs once they are all live, with the page.
  const spanning = [];
  for (const cid of (spec.document || {}).document_ready || []) {
    if (!callbacks[cid]) continue;
    const named = new Set();
    for (const id of refs[cid]) if (byId.has(id)) named.add(partOf(byId.get(id)));
    if (named.size > 1) spanning.push([cid, named]);
    else group(named.size ? [...named][0] : null).ready.push(cid);
  }
  const documentReady = (cid) => callbacks[cid]({event_name: "document"}, {event_name: "document_ready"});
  const live = new Set();
  const start = (part) => {
    if (live.has(part) || !groups.has(part)) return;
    live.add(part);
    const {elements: own, ready} = groups.get(part);
    for (const el of own) {
      const model = models.get(el.dataset.aeModel);
      if (model) model.bind(el);
    }
    for (const cid of ready) documentReady(cid);
  };
  const order = [...groups.keys()].filter((part) => part !== null);  // (document order: elements were)
  const anchor = parts ? anchorId() : "";
  const target = anchor ? document.getElementById(anchor) : null;
  start(null);
  for (const [, named] of spanning) for (const part of named) start(part);
  for (const [cid] of spanning) documentReady(cid);
  start(order.find((part) => groups.get(part).ready.length) ?? null);
  if (target) start(target.closest(parts));
  if (live.size > order.length) {
    done();
    return models;
  }
  const touched = (event) => {
    const part = event.target instanceof Element ? event.target.closest(parts) : null;
    if (!part || live.has(part)) return;
    // A part touched from inside a callback's run (its focus()) is not that run's own doing.
    const outer = running;
    running = null;
    try { start(part); } finally { running = outer; }
  };
  for (const kind of FIRST_TOUCH) root.addEventListener(kind, touched, {capture: true, passive: true});
  const rest = order.filter((part) => !live.has(part));
  const next = () => {
    const part = rest.shift();
    if (part !== undefined) start(part);
    if (rest.length) setTimeout(next, 0);
    else {
      for (const kind of FIRST_TOUCH) root.removeEventListener(kind, touched, {capture: true});
      done();
    }
  };
  setTimeout(next, 0);
  return models;
}
