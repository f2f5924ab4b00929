// The controller every explorable's CustomJS runs: draws each change of the
// state before the next frame, hands a student's actions to the explorable,
// opens the page's deep link once the document is ready and keeps the
// address bar following the state (web/links.js).
import {nameUnnamedControls} from "./a11y.js";
import {applyLink, followLink} from "./links.js";

const pending = new WeakSet();

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
 * The controller an explorable's CustomJS runs for every event: a change of
 * the state model (from the student or from the server) is drawn with
 * `draw(state, models, config)` before the next frame, and the address bar
 * follows it; the document's `document_ready` opens the page's deep link;
 * any other event is a student's action, handed to
 * `act({state, models, config, origin, event})`.
 * An error goes to the console and never stops the page.
 * @param {string} name the explorable's name, for the console
 */
export function controller(name, draw, act) {
  return function (args, event, data) {
    try {
      const {state, models, config} = args;
      const origin = event && event.origin ? event.origin : event;
      // A document's event comes as the callback's data (its object is the document).
      if (data && data.event_name === "document_ready") {
        applyLink(state, models, config);
        nameUnnamedControls();  // also in an author's page, which has no web/frame.js
      }
      else if (origin === state) {
        drawSoon(state, () => draw(state, models, config));
        followLink(state, config);
      } else act({state, models, config, origin, event});
    } catch (err) {
      console.error(`attention explorable (${name}):`, err);
    }
  };
}
