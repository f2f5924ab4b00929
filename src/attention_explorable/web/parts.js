// The pieces an explorable module builds its page from (the anywidget front-end form, `render({model, el})`):
// readouts, buttons, a check box, a question's options, figures. Each is made once with createElement and
// written in place on every move: a readout's markup (the view's own, the Python view's twin) is morphed into
// its nodes, a control's state is set on its element, a figure is patched from its nodes (web/svg.js). Nothing
// here reads the layout, and nothing here knows a host: the module sets its model, the model tells the module.
import {morph, patch} from "./dom.js";
import {escapeHtml} from "./shared.js";
import {figureNodes, scales} from "./svg.js";
import {watchTheme} from "./theme.js";
import CSS from "./explorable.css";
import THEME from "./theme.json";

/** An element `tag` with attributes `attrs` (set as they are: no markup) and children (nodes or text). */
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
  host.replaceChildren(el("style", {}, STYLES), root);
  watchTheme(root, theme);
  return root;
}

/** A box of readout text: `set(html)` writes the view's markup (morphed: what stays keeps its node). */
export function readout(cls, {live = false, sr = false, hidden = false} = {}) {
  const node = el("div", {class: `ae-n-readout ae-readout ${cls}${sr ? " ae-n-sr" : ""}`,
                          role: live ? "status" : null, "aria-live": live ? "polite" : null, hidden});
  let now = null;
  return {
    el: node,
    set(html) { if (html !== now) morph(node, now = html); },
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
 * A question's options as a column of toggle buttons (`aria-pressed`), `onPick(index)`;
 * `set({active, disabled})`: the pressed one's index or null, and whether they may still change.
 */
export function options(cls, labels, onPick) {
  const group = el("div", {class: `ae-n-group ae-n-vertical ${cls}`, role: "group"});
  labels.forEach((label, i) => {
    const b = el("button", {type: "button", "aria-pressed": "false"}, label);
    b.addEventListener("click", () => { if (!b.disabled) onPick(i); });
    group.append(b);
  });
  return {el: group, set({active, disabled} = {}) {
    [...group.children].forEach((b, i) => {
      if (active !== undefined) b.setAttribute("aria-pressed", String(i === active));
      if (disabled !== undefined) b.disabled = Boolean(disabled);
    });
  }};
}

/**
 * A figure drawn from `spec` (web/figures.js; the form web/svg.js draws) in a box of class `cls`:
 * `draw()` redraws it from its sources' present data, writing only what changed; `scales()` are its two
 * dimensions as drawn (a pointer's place).
 */
export function figure(cls, spec) {
  const box = el("div", {class: `ae-n-plot ${cls}`, role: "img"});
  const get = (x) => x;
  let cells = null, css = null, title = null;
  return {
    el: box,
    spec,
    scales: () => scales(spec, get),
    draw() {
      const made = figureNodes(spec, get);
      const style = (spec.match_aspect ? "" : `height:${spec.height}px;`) + made.style;
      if (style !== css) box.style.cssText = css = style;
      patch(box, made.cells, cells);
      cells = made.cells;
      if (made.title && made.title !== title) box.setAttribute("aria-label", title = made.title);
    },
  };
}

/**
 * Write a view (`{sources, ranges, html, props}`, the twin of the Python view's) into a module's parts:
 * `sources[name]` into the data of the source of that name in `parts.sources`, whose figures are redrawn
 * once; `html[name]` into readout `parts[name]`; `props[name]` into control `parts[name]`. What only a
 * screen reader meets (`html.live` and the plots' tables, `html.*_data`) waits until the moves settle,
 * `delay` ms after the last (a drag is said once, at its end), through `later(fn)`.
 */
export function writeView(parts, view, later) {
  const redraw = new Set();
  for (const [name, data] of Object.entries(view.sources || {})) {
    const source = parts.sources[name];
    source.data = data;
    for (const f of source.figures || []) redraw.add(f);
  }
  for (const [name, [start, end]] of Object.entries(view.ranges || {})) {
    const range = parts.ranges[name];
    range.start = start;
    range.end = end;
    for (const f of range.figures || []) redraw.add(f);
  }
  const heard = {};
  for (const [name, html] of Object.entries(view.html || {})) {
    if (name === "live" || name.endsWith("_data")) heard[name] = html;
    else parts[name].set(html);
  }
  for (const [name, props] of Object.entries(view.props || {})) parts[name].set(props);
  for (const f of redraw) f.draw();
  later(() => { for (const [name, html] of Object.entries(heard)) parts[name].set(html); });
}

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

/** Set the model's keys in `changes` and save them (the host's changes come back as `change:` events). */
export function setState(model, changes) {
  for (const [k, v] of Object.entries(changes)) model.set(k, v);
  model.save_changes();
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
 * @param {{say: function(string): void, reveal?: function(string): object}} hooks
 */
export function choiceParts(name, S, predictions, model, {say, reveal = () => ({})}) {
  const set = (changes) => { say(""); setState(model, changes); };
  const show = (prediction) => set({prediction, ...reveal(prediction), revealed: true});
  const question = readout(`ae-${name}-question`);
  question.set(`<b>${escapeHtml(S[`${name}_predict_question`])}</b>`);
  return {
    question,
    prediction_choice: options(`ae-${name}-prediction`, predictions.slice(1).map((p) => S[`${name}_predict_${p}`]),
      (i) => { if (!model.get("revealed") && model.get("prediction") !== predictions[i + 1]) set({prediction: predictions[i + 1]}); }),
    predict_check: button(`ae-${name}-check`, S.predict_check,
      () => (model.get("prediction") ? show(model.get("prediction")) : say(escapeHtml(S.predict_needed))), {primary: true}),
    predict_skip: button(`ae-${name}-skip`, S.skip_prediction, () => show("")),
    feedback: readout(`ae-${name}-feedback`),
  };
}
