// The pieces an explorable module builds its page from (the anywidget front-end form, `render({model, el})`):
// readouts, buttons, a check box, a question's options, figures. Each is made once with createElement and
// written in place on every move: a readout's markup (the view's own, the Python view's twin) is morphed into
// its nodes, a control's state is set on its element, a figure is patched from its nodes (web/svg.js). Nothing
// here reads the layout, and nothing here knows a host: the module sets its model, the model tells the module.
import {morph, patch} from "./dom.js";
import {echo, escapeHtml, fill, formatG, setState, subscriptHtml, typedValue, valueText} from "./shared.js";
import {figureNodes, scales} from "./svg.js";
import {watchTheme} from "./theme.js";
import CSS from "./explorable.css";
import THEME from "./theme.json";

/** An element `tag` with attributes `attrs` (set as they are: no markup) and children (nodes or text). */
/** Mark `els` with where a phone puts them once an explorable's columns are one (explorable.css, .ae-n-split):
 * "first" (the question), "figure", "last". */
export function phoneOrder(place, ...els) {
  for (const e of els) e.classList.add(`ae-n-${place}`);
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

const block = (selector, name) => `${selector} { ${Object.entries(THEME[name]).map(([k, v]) => `${k}: ${v};`).join(" ")} }`;

/** The explorables' styles for a module's root `.ae-x`: the theme's colours (its data-ae-theme), the parts. */
export const STYLES = [block(".ae-x", "light"), block(".ae-x[data-ae-theme=dark]", "dark"), CSS].join("\n");

/**
 * The root of an explorable module in `host`: its styles, then a `.ae-x` box of class `cls` whose
 * language is `lang` and whose theme is `theme` ("light", "dark"; "auto" or null: dark where what shows
 * behind it is dark, as a notebook's dark theme or an author's dark page, followed as the page switches).
 */
export function moduleRoot(host, cls, lang, theme = null) {
  const root = el("div", {class: `ae-x ${cls}`, lang: lang || null});
  // In an <attention-explorable> (its shadow root), the colours are the element's (:host, native.py
  // _EMBED_CSS): an author's `attention-explorable { --ae-accent: … }` wins there, and the root inherits it.
  const shell = host.getRootNode && host.getRootNode().host;
  const inherits = Boolean(shell && (shell.localName === "attention-explorable" || shell.classList.contains("attention-explorable")));
  host.replaceChildren(el("style", {}, inherits ? CSS : STYLES), root);
  watchTheme(root, theme);
  return root;
}

/**
 * A box of readout text: `set(html)` writes the view's markup (morphed: what stays keeps its node);
 * `set({visible})` (a view's props) shows or hides it.
 */
export function readout(cls, {live = false, sr = false, hidden = false} = {}) {
  const node = el("div", {class: `ae-n-readout ae-readout ${cls}${sr ? " ae-n-sr" : ""}`,
                          role: live ? "status" : null, "aria-live": live ? "polite" : null, hidden});
  let now = null;
  return {
    el: node,
    set(html) {
      if (html !== null && typeof html === "object") node.hidden = html.visible === false;  // a view's props
      else if (html !== now) morph(node, subscriptHtml(now = html));  // W_V as the text writes it
    },
    show(on) { node.hidden = !on; },
  };
}

/** A button in its own box; `set({visible, disabled, label})`. */
export function button(cls, label, onClick, {primary = false} = {}) {
  const b = el("button", {type: "button", class: primary ? "ae-n-primary" : ""}, label);
  const box = el("div", {class: `ae-n-btn-host ${cls}`}, b);
  b.addEventListener("click", onClick);
  return {el: box, button: b, set({visible, disabled, label: text} = {}) {
    if (visible !== undefined) box.hidden = !visible;
    if (disabled !== undefined) b.disabled = Boolean(disabled);
    if (text !== undefined) b.textContent = text;
  }};
}

let ids = 0;
/** A check box and its label; `onChange(checked)`; `set({active, disabled, visible})`. */
export function checkbox(cls, label, onChange) {
  const id = `ae-x${++ids}`;
  const input = el("input", {type: "checkbox", id});
  const box = el("div", {class: `ae-n-check ${cls}`}, input, el("label", {for: id}, label));
  input.addEventListener("change", () => onChange(input.checked));
  return {el: box, input, set({active, disabled, visible} = {}) {
    if (active !== undefined) input.checked = Boolean(active);
    if (disabled !== undefined) input.disabled = Boolean(disabled);
    if (visible !== undefined) box.hidden = !visible;
  }};
}

/**
 * A row (or, `vertical`, a column) of toggle buttons (`aria-pressed`), of which one may be pressed:
 * `onPick(index)`; `set({active, disabled, labels, html_attributes, visible})`: the pressed one's index or
 * null, whether they may still change, their labels, the group's attributes (its `lang`), whether it shows.
 */
export function options(cls, labels, onPick, {vertical = true} = {}) {
  const group = el("div", {class: `ae-n-group${vertical ? " ae-n-vertical" : ""} ${cls}`, role: "group"});
  group.addEventListener("click", (event) => {
    const b = event.target.closest("button");
    if (b && !b.disabled && b.parentElement === group) onPick([...group.children].indexOf(b));
  });
  let active = null, disabled = false;
  const draw = () => [...group.children].forEach((b, i) => {
    b.setAttribute("aria-pressed", String(i === active));
    b.disabled = disabled;
  });
  const relabel = (texts) => {
    while (group.children.length > texts.length) group.lastElementChild.remove();
    while (group.children.length < texts.length) group.append(el("button", {type: "button", "aria-pressed": "false"}));
    texts.forEach((t, i) => { if (group.children[i].textContent !== t) group.children[i].textContent = t; });
  };
  relabel(labels);
  return {el: group, set(props = {}) {
    if (props.labels !== undefined) relabel(props.labels);
    if (props.active !== undefined) active = props.active;
    if (props.disabled !== undefined) disabled = Boolean(props.disabled);
    if (props.visible !== undefined) group.hidden = !props.visible;
    for (const [k, v] of Object.entries(props.html_attributes || {})) if (group.getAttribute(k) !== v) group.setAttribute(k, v);
    draw();
  }};
}

/**
 * A box to type text in, with its label, of class `cls`: `onInput(text)` at each keystroke; `set({value})`
 * writes it (when it differs: the caret stays where the student types). `attrs` are more of the input's
 * attributes (a placeholder, an inputmode).
 */
export function textInput(cls, label, onInput, attrs = {}) {
  const id = `ae-x${++ids}`;
  const input = el("input", {type: "text", id, autocomplete: "off", spellcheck: "false", ...attrs});
  const box = el("div", {class: `ae-n-input ae-n-text ${cls}`}, el("label", {for: id}, label), input);
  input.addEventListener("input", () => onInput(input.value));
  return {el: box, input, set({value, visible, disabled} = {}) {
    if (value !== undefined && input.value !== value) input.value = value;
    if (visible !== undefined) box.hidden = !visible;
    if (disabled !== undefined) input.disabled = Boolean(disabled);
  }};
}

/** The colon after a label: the full-width one after Chinese text ("温度 T："), else ":". */
const colon = (label) => (/[\u3400-\u9fff]/.test(label) ? "：" : ":");

/** Pixels a pointer may move and still tap. */
const TAP_SLOP = 6;
/** How near (CSS px) a finger must come down to a plot's dragged mark to take it rather than scroll. */
const GRAB_PX = 28;

/**
 * A slider and, beside it, a box to type its value, in a row: the slider in a box of class `cls`
 * (its label `label`), the typed box of class `cls-box` (the same label, for a screen reader only).
 * `bounds` is [low, high, step]. `onSlide(value)` is called for each move of the slider; `onType(raw)`
 * for a typed text committed (Enter, or leaving the box). The two parts, `slider` and `box`, take
 * `set({value, disabled})`: the slider a number, the box its text. With `log` the slider runs along log10
 * of the value (low > 0), a hundredth of a decade a step.
 */
export function slider(cls, label, [lo, hi, step], {onSlide, onType, log = false}) {
  const id = `ae-x${++ids}`, boxId = `ae-x${++ids}`;
  // A log slider (a temperature over three decades) runs along log10 of its value, a hundredth of a decade a
  // key press; it says its value itself (aria-valuenow), not the logarithm its input holds.
  const [toTrack, fromTrack] = log ? [Math.log10, (x) => 10 ** x] : [(x) => x, (x) => x];
  const range = el("input", log ? {type: "range", id, min: Math.log10(lo), max: Math.log10(hi), step: 0.01,
                                   "aria-valuemin": lo, "aria-valuemax": hi}
                                 : {type: "range", id, min: lo, max: hi, step});
  const input = el("input", {type: "text", id: boxId, inputmode: "decimal", autocomplete: "off"});
  const row = el("div", {class: "ae-n-row"},
    el("div", {class: `ae-n-slider ae-slider ${cls}`}, el("label", {for: id}, label + colon(label)), range),
    el("div", {class: `ae-n-input ae-box ${cls}-box`, style: "width:86px;margin:22px 5px 4px 0"},
       el("label", {for: boxId, class: "ae-n-sr"}, label), input));
  range.addEventListener("input", () => onSlide(fromTrack(Number(range.value))));
  let committed = null;  // Enter, then leaving the box: one commit
  const commit = () => { if (input.value !== committed) onType(committed = input.value); };
  input.addEventListener("change", commit);
  input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit(); });
  input.addEventListener("input", () => { committed = null; });
  const disable = (node, disabled) => { if (disabled !== undefined) node.disabled = Boolean(disabled); };
  return {
    el: row,
    slider: {set({value, disabled} = {}) {
      if (value !== undefined && fromTrack(Number(range.value)) !== value) range.value = String(toTrack(value));
      if (value !== undefined) range.setAttribute("aria-valuetext", valueText(value));
      if (value !== undefined && log) range.setAttribute("aria-valuenow", String(value));
      disable(range, disabled);
    }},
    box: {set({value, disabled} = {}) {
      if (value !== undefined && input.value !== value) input.value = committed = value;
      disable(input, disabled);
    }},
  };
}

/**
 * The slider of the model's key `name` and its typed box (`slider`, of class `cls`), by the view's names
 * `<name>_slider` and `<name>_box`: a moved slider sets the key on its grid (`toGrid(value, step)`); a typed
 * number sets it clamped to its bounds, and `say(markup, under)` says when it was clamped ("" when not), `under`
 * the slider's element (a noticePart shows it right under it); junk, or
 * a number that changes nothing, puts the key's value back in the box. `config` is the view's:
 * `sliders[name]` [low, high, step], `labels[name]`, `strings.input_clamped`. `log`: the slider runs along
 * the value's logarithm (a temperature, whose 0.02 and 1 would sit at 0.1 % and 10 % of a straight track).
 */
export function modelSlider(name, cls, config, model, {say, toGrid, log = false}) {
  const [lo, hi, step] = config.sliders[name];
  const set = (value) => { if (value !== model.get(name)) setState(model, {[name]: value}); };
  const made = slider(cls, config.labels[name], [lo, hi, step], {
    log,
    onSlide(value) {
      say("");
      const now = model.get(name);
      let next = toGrid(Math.min(Math.max(value, lo), hi), step);
      // (on a log slider near its low end a key's move is less than a step of the grid: it takes one whole)
      if (log && next === now && value !== now) next = toGrid(Math.min(Math.max(now + Math.sign(value - now) * step, lo), hi), step);
      set(next);
    },
    onType(raw) {
      const typed = typedValue(raw, {lo, hi, toGrid: (v) => toGrid(v, step), message: config.strings.input_clamped,
                                     label: config.labels[name]});
      // junk is said and the value kept; an emptied box just shows the value again
      if (typed !== null) say(typed.notice, made.el);
      else say(raw.trim() ? fill(config.strings.input_not_number,
                                 {name: config.labels[name], raw: escapeHtml(echo(raw)), value: formatG(model.get(name))}) : "",
               made.el);
      made.box.set({value: formatG(typed === null ? model.get(name) : typed.value)});
      if (typed !== null) set(typed.value);
    },
  });
  return {el: made.el, [`${name}_slider`]: made.slider, [`${name}_box`]: made.box};
}

/**
 * A figure drawn from `spec` (web/figures.js; the form web/svg.js draws) in a box of class `cls`:
 * `draw()` redraws it from its sources' present data, writing only what changed; `scales()` are its two
 * dimensions as drawn (also the box's `aeScales()`, for a script of the page); `set({visible})` shows
 * or hides it. `onTap(x, y)` (data
 * coordinates) makes a tap or click on its frame a student's action; `onDrag(x, y, dropped)` a drag on it,
 * called at each move (`dropped` false) and once at the drop (true). The frame's box is read when the
 * pointer goes down, never on a move. On a touch screen a finger drags only what `grab()` names (the
 * [x, y] of the mark it moves, in data coordinates), put down within GRAB_PX of it: a swipe that starts
 * elsewhere scrolls the page (the plot's `touch-action: pan-y`), and a tap anywhere is still a tap.
 */
export function figure(cls, spec, {onTap = null, onDrag = null, grab = null} = {}) {
  // (a plot dragged from anywhere takes every touch; one dragged by its mark leaves a swipe to the page)
  const drag = onDrag ? (grab ? " ae-n-drag" : " ae-n-drag-anywhere") : "";
  const box = el("div", {class: `ae-n-plot ${cls}${drag}`, role: "img"});
  const get = (x) => x;
  let cells = null, css = null, title = null;
  const part = {
    el: box,
    spec,
    scales: () => scales(spec, get),
    draw() {
      if (box.hidden) {  // a hidden figure is not drawn (nor named: its title may be an answer)
        if (cells) box.replaceChildren();
        box.removeAttribute("aria-label");
        cells = css = title = null;
        return;
      }
      const made = figureNodes(spec, get);
      const style = (spec.match_aspect ? "" : `height:${spec.height}px;`) +
        (spec.max_width ? `max-width:${spec.max_width}px;` : "") + made.style;
      if (style !== css) box.style.cssText = css = style;
      patch(box, made.cells, cells);
      cells = made.cells;
      if (made.title && made.title !== title) box.setAttribute("aria-label", title = made.title);
    },
  };
  part.figures = [part];
  part.set = ({visible} = {}) => { if (visible !== undefined) box.hidden = !visible; };
  box.aeScales = part.scales;
  if (onTap || onDrag) {
    let start = null;
    const frameOf = (event) => {
      const frame = box.querySelector(".ae-pic-frame");
      return frame && frame.contains(event.target) ? frame : null;
    };
    const at = (point, then) => {
      const {rect} = start, {x, y} = part.scales();
      then(x.value((point.clientX - rect.left) / rect.width), y.value(1 - (point.clientY - rect.top) / rect.height));
    };
    // Whether a finger at (clientX, clientY) comes down on the mark grab() names, in `frame`.
    const onMark = (frame, clientX, clientY) => {
      const mark = grab ? grab() : null;
      if (!mark) return false;
      const rect = frame.getBoundingClientRect(), {x, y} = part.scales();
      const fx = x.fraction(mark[0]), fy = y.fraction(mark[1]);
      if (fx === null || fy === null) return false;
      return Math.hypot(clientX - (rect.left + fx * rect.width), clientY - (rect.top + (1 - fy) * rect.height)) <= GRAB_PX;
    };
    // A finger put down on the mark keeps the page still while it drags it (touchstart's default is the
    // scroll: cancelled here); put down elsewhere, it scrolls the page or taps, and drags nothing.
    if (onDrag && grab) {
      box.addEventListener("touchstart", (event) => {
        const frame = frameOf(event), touch = event.touches[0];
        if (frame && event.touches.length === 1 && event.cancelable && onMark(frame, touch.clientX, touch.clientY)) {
          event.preventDefault();
        }
      }, {passive: false});
    }
    box.addEventListener("pointerdown", (event) => {
      const frame = frameOf(event);
      if (!frame || event.button > 0 || start) return;  // (one pointer at a time: a second finger is left alone)
      // A mouse drags from anywhere; a finger or a pen, which also scroll the page, only from the mark.
      const drags = Boolean(onDrag) && (event.pointerType === "mouse" || !grab || onMark(frame, event.clientX, event.clientY));
      start = {id: event.pointerId, rect: frame.getBoundingClientRect(), x: event.clientX, y: event.clientY, moved: false,
               drags, last: event};
      if (drags) box.setPointerCapture(event.pointerId);
    });
    box.addEventListener("pointermove", (event) => {
      if (!start || !start.drags || event.pointerId !== start.id) return;
      if (!start.moved && Math.hypot(event.clientX - start.x, event.clientY - start.y) <= TAP_SLOP) return;
      start.moved = true;
      start.last = {clientX: event.clientX, clientY: event.clientY};
      at(start.last, (x, y) => onDrag(x, y, false));
    });
    const end = (event) => {
      if (!start || event.pointerId !== start.id) return;
      const up = event.type === "pointerup";
      const moved = start.moved || Math.hypot(event.clientX - start.x, event.clientY - start.y) > TAP_SLOP;
      // (a cancelled drag, the browser having taken the pointer, is dropped where it was last seen)
      if (start.moved) at(up ? event : start.last, (x, y) => onDrag(x, y, true));
      else if (up && !moved && onTap) at(event, onTap);
      start = null;
    };
    box.addEventListener("pointerup", end);
    box.addEventListener("pointercancel", end);
  }
  return part;
}

/** The title of `fig` as a part: `set({text})` (a view's props), drawn with it. */
export function title(fig) {
  return {figures: [fig], set({text}) { fig.spec.title.text = text; }};
}

/** An axis of `fig` as a part: `set({axis_label, major_label_overrides})` (a view's props), drawn with it. */
export function axis(fig, which) {
  const model = fig.spec[which].model;
  return {figures: [fig], set(props) { Object.assign(model, props); }};
}

/**
 * Write a view (`{sources, ranges, html, props}`, the twin of the Python view's) into a module's parts:
 * `sources[name]` into the data of the source of that name in `parts.sources`, `ranges[name]` into
 * `parts.ranges[name]`, `html[name]` into readout `parts[name]`, `props[name]` into part `parts[name]`;
 * then each figure that draws what changed (a part's `figures`) is redrawn once. What only a screen
 * reader meets waits until the moves settle (see `settled`): what is said (`html.live`) through `later(fn)`,
 * so a drag is said once, at its end; the plots' tables (`html.*_data`), which are read, not said, through
 * `soon(fn)`, a moment after the last move, so they are current by the time a reader gets to them.
 */
export function writeView(parts, view, later, soon) {
  const redraw = new Set();
  const wrote = (part) => { for (const f of part.figures || []) redraw.add(f); };
  for (const [name, data] of Object.entries(view.sources || {})) {
    parts.sources[name].data = data;
    wrote(parts.sources[name]);
  }
  for (const [name, [start, end]] of Object.entries(view.ranges || {})) {
    Object.assign(parts.ranges[name], {start, end});
    wrote(parts.ranges[name]);
  }
  const heard = {}, read = {};
  for (const [name, html] of Object.entries(view.html || {})) {
    if (name === "live") heard[name] = html;
    else if (name.endsWith("_data")) read[name] = html;
    else parts[name].set(html);
  }
  for (const [name, props] of Object.entries(view.props || {})) {
    parts[name].set(props);
    wrote(parts[name]);
  }
  for (const f of redraw) f.draw();
  later(() => { for (const [name, html] of Object.entries(heard)) parts[name].set(html); });
  soon(() => { for (const [name, html] of Object.entries(read)) parts[name].set(html); });
}

/** How long after the last move the plots' tables are written (`writeView`'s `soon`): longer than the gap
 * between two frames of a drag, shorter than a reader takes to get from the control to a table. */
export const TABLES_AFTER_MS = 150;

/** `later(fn)`: run only the last `fn` given, `delay` ms after it was given (what a screen reader hears). */
export function settled(delay = 800) {
  let timer = 0;
  const later = (fn) => { clearTimeout(timer); timer = setTimeout(fn, delay); };
  later.cancel = () => clearTimeout(timer);
  return later;
}

/**
 * The model's keys `names` as a plain object, and `onChange(fn)`: `fn` once after a burst of changes of
 * any of them (in a microtask, so before the next frame); it returns the cleanup.
 */
export function watchState(model, names) {
  const read = () => Object.fromEntries(names.map((n) => [n, model.get(n)]));
  return {read, onChange(fn) {
    let soon = false;
    const changed = () => {
      if (soon) return;
      soon = true;
      queueMicrotask(() => { soon = false; fn(); });
    };
    for (const n of names) model.on(`change:${n}`, changed);
    return () => { for (const n of names) model.off(`change:${n}`, changed); };
  }};
}

/** A module's notice (of class `cls`, hidden while empty); its `say(markup, under)` shows it (right under the
 * element `under` when given), or with "" hides it. */
export function noticePart(cls = "ae-error ae-input-notice") {
  const part = readout(cls, {hidden: true});
  // (said about a control: shown right under it, where the eyes are, not at the end of the controls; said
  // about nothing in particular: in its own place again, which a comment keeps once it has moved)
  let home = null;
  part.say = (html, under = null) => {
    if (html && under && under.nextElementSibling !== part.el) {
      if (!home && part.el.parentNode) part.el.before((home = document.createComment("ae-notice")));
      under.after(part.el);
    } else if (html && !under && home && home.nextSibling !== part.el) home.after(part.el);
    part.set(html);
    part.show(html !== "");
  };
  return part;
}

/**
 * Draw `view(state)` (the model's keys `names` as a plain object) into `parts` now, and again after each
 * burst of their changes (`watchState`, `writeView`). Returns the module's cleanup, whose `draw()` draws
 * again at once.
 */
export function drawView(model, names, parts, view) {
  const state = watchState(model, names), later = settled(), soon = settled(TABLES_AFTER_MS);
  const draw = () => writeView(parts, view(state.read()), later, soon);
  draw();
  const stop = state.onChange(draw);
  return Object.assign(() => { stop(); later.cancel(); soon.cancel(); }, {draw});
}

// setState (a module's change of its model) is web/shared.js's, here with the other parts.
export {setState};

/**
 * Tell the module's host of the student's activity (anywidget's custom message, `model.send`): `{event,
 * ...}` with event "prediction", "checked", "exercise" or "completed" (web/host.js makes each a DOM event
 * of the page; docs/embedding.md lists their payloads). A host with no `send` hears nothing.
 */
export function tell(model, message) {
  if (typeof model.send === "function") model.send(message);
}

/** A button `part` with `notice` (a readout) right under it, hidden and shown with it. */
function withNotice(part, notice) {
  const box = el("div", {}, part.el, notice.el);
  return {...part, el: box, set(props = {}) {
    part.set(props);
    if (props.visible !== undefined) box.hidden = !props.visible;
  }};
}

/**
 * A module's question asked first (the parts of web/parts.js): the question, its options, "check", "skip"
 * and the feedback, by the names the views use (CHOICE_MODELS), with CSS classes `ae-<name>-question`,
 * `-prediction`, `-check`, `-skip` and `-feedback`. The student's actions set the model: an option becomes
 * `prediction`; "check" with one, or "skip" (with none), sets `prediction`, `revealed` and whatever
 * `reveal(prediction)` adds;
 * "check" without one says `predict_needed` through `say(text)`.
 * @param {string} name the explorable's name
 * @param {object} S its strings (`<name>_predict_question`, `<name>_predict_<option>`, `predict_check`...)
 * @param {string[]} predictions "" then the options, in the order of the buttons
 * @param {object} model the module's model
 * @param {{say: function(string): void, reveal?: function(string): object, right?: string}} hooks `right`: the
 *   right option (told with the check: whether the prediction was right)
 */
export function choiceParts(name, S, predictions, model, {say, reveal = () => ({}), right = null}) {
  // "Check" with nothing chosen is answered right under the button (the module's notice may be a screen away).
  const needed = readout("ae-error ae-input-notice", {live: true, hidden: true});
  const unsay = () => { needed.show(false); say(""); };
  const set = (changes) => { unsay(); setState(model, changes); };
  const show = (prediction) => {
    set({prediction, ...reveal(prediction), revealed: true});
    tell(model, {event: "checked", question: "prediction", prediction: prediction || null, skipped: !prediction,
                 right: prediction && right ? prediction === right : null});
    tell(model, {event: "completed"});
  };
  const choose = (prediction) => {
    set({prediction});
    tell(model, {event: "prediction", question: "prediction", prediction});
  };
  const question = readout(`ae-${name}-question`);
  question.set(`<b>${escapeHtml(S[`${name}_predict_question`])}</b>`);  // (readout.set writes W_Q's subscript)
  return {
    question,
    prediction_choice: options(`ae-${name}-prediction`, predictions.slice(1).map((p) => S[`${name}_predict_${p}`]),
      (i) => { if (!model.get("revealed") && model.get("prediction") !== predictions[i + 1]) choose(predictions[i + 1]); }),
    predict_check: withNotice(button(`ae-${name}-check`, S.predict_check, () => {
      if (model.get("prediction")) return show(model.get("prediction"));
      needed.set(escapeHtml(S.predict_needed));
      needed.show(true);
    }, {primary: true}), needed),
    predict_skip: button(`ae-${name}-skip`, S.skip_prediction, () => show("")),
    feedback: readout(`ae-${name}-feedback`),
  };
}
