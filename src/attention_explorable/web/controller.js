// The controller every explorable's CustomJS runs: draws each change of the
// state before the next frame, hands a student's actions to the explorable,
// opens the page's deep link once the document is ready and keeps the
// address bar following the state (web/links.js).
import {nameUnnamedControls} from "./a11y.js";
import {applyLink, followLink} from "./links.js";
import {formatG, onGrid, pageWide, typedNumber} from "./shared.js";

const pending = pageWide("pending-draws", () => new WeakSet());

/**
 * Run `draw()` once after the current burst of changes to `key` (several
 * state properties set together call it once), in a microtask: before the
 * browser paints the next frame.
 */
export function drawSoon(key, draw) {
  if (pending.has(key)) return;
  pending.add(key);
  queueMicrotask(() => {
    pending.delete(key);
    try { draw(); } catch (err) { console.error("attention explorable: drawing failed", err); }
  });
}


/**
 * The one handler of an explorable's sliders and their typed boxes: the
 * models `<name>_slider` and `<name>_box` of every `config.sliders` entry
 * (name -> [low, high, step], sent by the Python side). A moved slider
 * becomes the state, on its grid; a typed box goes through `typedNumber`
 * (clamped with a notice, `config.labels[name]` naming it). A student's
 * action hides the last notice.
 * @param {object} action the controller's `{state, models, config, origin}`
 * @param {{toGrid?: function(number, number): number, beforeChange?: function(): void}} options
 *   `toGrid(value, step)` puts a value on the grid (default `onGrid`);
 *   `beforeChange()` runs before a slider changes the state.
 * @returns {boolean} whether `origin` was one of the sliders or boxes
 */
export function sliderAction({state, models, config, origin}, {toGrid = onGrid, beforeChange} = {}) {
  for (const [name, [lo, hi, step]] of Object.entries(config.sliders || {})) {
    const slider = models[name + "_slider"];
    if (origin !== slider && origin !== models[name + "_box"]) continue;
    // The echo rule of the sliders and their boxes: a control that shows the state's value was drawn
    // from it (by this module, or on a live page by the server), not moved or typed by the student.
    if (origin.value === (origin === slider ? state[name] : formatG(state[name]))) return true;
    if (origin !== slider) {
      typedNumber(state, models, name, {lo, hi, toGrid: (v) => toGrid(v, step),
                                        message: config.strings.input_clamped, label: config.labels[name]});
      return true;
    }
    if (models.notice && models.notice.visible) models.notice.visible = false;
    const value = toGrid(Math.min(Math.max(origin.value, lo), hi), step);
    if (value !== state[name]) {
      if (beforeChange) beforeChange();
      state[name] = value;
    }
    return true;
  }
  return false;
}

/**
 * The controller an explorable's CustomJS runs for every event: a change of
 * the state model (from the student or from the server) is drawn with
 * `draw(state, models, config)` before the next frame, and the address bar
 * follows it; the document's `document_ready` opens the page's deep link;
 * any other event is a student's action, handed to
 * `act({state, models, config, origin, event})`.
 *
 * On a student page (web/native.js) what a run changes itself does not call it
 * back, and the run's `context.changed` names those models: a press that
 * changes the state is drawn in the same run, so one key press is one run of
 * the module. Under BokehJS every change calls back, and a burst of them is
 * drawn once, in a microtask.
 * An error goes to the console and never stops the page.
 * @param {string} name the explorable's name, for the console
 */
export function controller(name, draw, act) {
  return function (args, event, data, context) {
    try {
      const {state, models, config} = args;
      const origin = event && event.origin ? event.origin : event;
      const quiet = Boolean(context && context.changed instanceof Set);
      let drawnNow = false;
      const drawn = () => {
        drawnNow = true;
        draw(state, models, config);
        followLink(state, config);
      };
      try {
        // A document's event comes as the callback's data (its object is the document).
        if (data && data.event_name === "document_ready") {
          applyLink(state, models, config);
          nameUnnamedControls();  // also in an author's page, which has no web/frame.js
        } else if (origin === state) {
          if (quiet) drawn();
          else {
            drawSoon(state, () => draw(state, models, config));
            followLink(state, config);
          }
        } else act({state, models, config, origin, event});
      } finally {
        // What the run changed is drawn, even when it then failed.
        if (quiet && !drawnNow && context.changed.has(state)) drawn();
      }
    } catch (err) {
      console.error(`attention explorable (${name}):`, err);
    }
  };
}
