// Presenter keys for a page with one steps explorable (run by a CustomJS once
// the document is ready): 1, 2, 3 choose a step and D demonstrates it, by clicking the
// same buttons a mouse would (without a prediction the explorable asks for
// one first; D again is its "skip predicting" button); the instructor's page adds R (reveal) and N
// (new round) through the component's `targets` (key -> CSS selector).
// Keys typed into a box stay text; a focused list (a select) does not take them. The listener sits on the document, since
// key events cross the shadow roots of the page. The hint is a check box
// that switches the keys off (single-key shortcuts must be able to be
// switched off: WCAG 2.1.4). An embedded page (?embed=1) keeps the keys and
// leaves out the hint.

import {deepQuery, viewOf} from "./dom.js";

const TARGETS = {"1": ".ae-step-1", "2": ".ae-step-2", "3": ".ae-step-3", "d": ".ae-demonstrate", "D": ".ae-demonstrate"};

let enabled = true;

// The explorable's "skip predicting" button, when it is shown (after D without a prediction).
function shownSkip() {
  const skip = deepQuery(document, ".ae-skip-prediction");
  return skip && skip.getClientRects().length > 0 ? skip : null;
}

function onKey(event, targets) {
  if (!enabled) return;
  const origin = event.composedPath()[0];
  const box = origin && origin.tagName === "INPUT" && !["checkbox", "radio", "button"].includes(origin.type);
  const typing = origin && (box || origin.tagName === "TEXTAREA" || origin.isContentEditable);
  if (event.ctrlKey || event.metaKey || event.altKey || !(event.key in targets)) return;
  // A focused list is no box: its type-ahead would pick an entry ("3" -> "3.8 Step 2") and the key would
  // do nothing. The key does what it says, and the list keeps its entry.
  if (origin && origin.tagName === "SELECT") event.preventDefault();
  // D without a prediction asks for one and puts the cursor in the empty prediction box;
  // D again there is the explicit skip the page shows (a prediction is a number, never "d").
  const skip = event.key.toLowerCase() === "d" ? shownSkip() : null;
  const owner = origin && ((origin.closest && origin.closest(".ae-prediction")) || (origin.getRootNode && origin.getRootNode().host));
  const emptyPrediction = box && origin.value === "" && owner && owner.classList.contains("ae-prediction");
  if (typing && !(skip && emptyPrediction)) return;
  if (typing) origin.blur();  // the keys work again after the skip: 1, 2, 3 are not typed into the box
  const host = skip || deepQuery(document, targets[event.key]);
  const button = host && (host.shadowRoot || host).querySelector("button");
  if (button) {
    button.click();
    event.preventDefault();
    // D on a projector whose demonstration is below the fold: the hall sees it move (the instructor's page
    // brings its whole explorable up; the other keys' buttons are in view where they are used).
    if (event.key.toLowerCase() === "d" && !inView(button)) {
      const box = deepQuery(document, ".ae-projected-explorable");
      (box || button).scrollIntoView({block: box ? "start" : "center"});
    }
  }
}

/** Whether `node` is on screen, wholly. */
function inView(node) {
  const box = node.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
}

/**
 * The presenter keys (attention_explorable.explorables.steps.presenter_keys on a Panel page; the steps'
 * page of its own, attention_explorable.modules.module_page), run once the document is ready (the
 * root element's data-ae-keys="on" says when the keys answer). The hint and its check box are in the
 * page's HTML; an embedded page hides them and keeps the keys.
 * @param {{host?: object, hint?: Element, targets?: Object<string, string>}} args
 *   host: the hint's Bokeh model (a Panel page), or hint: its element (a module's page); targets: more
 *   keys, a key (either case) -> a CSS selector
 */
export default function presenterKeys({host = null, hint = null, targets: more = {}}) {
  const root = document.documentElement;
  if (root.dataset.aeKeys === "on") return;  // once per document: a second listener would press each key twice
  const embedded = new URLSearchParams(window.location.search).get("embed") === "1";
  if (embedded && host) host.visible = false;
  if (embedded && hint) hint.hidden = true;
  const view = host ? viewOf(host) : null;
  const toggle = view ? view.shadow_el.querySelector("input.ae-keys-on") : hint && hint.querySelector("input.ae-keys-on");
  enabled = toggle ? toggle.checked : true;
  if (toggle) toggle.addEventListener("change", () => { enabled = toggle.checked; });
  const targets = {...TARGETS};
  for (const [key, selector] of Object.entries(more || {})) {
    targets[key.toLowerCase()] = selector;
    targets[key.toUpperCase()] = selector;
  }
  document.addEventListener("keydown", (event) => onKey(event, targets));
  root.dataset.aeKeys = "on";  // said on the page: the keys answer from now on
}
