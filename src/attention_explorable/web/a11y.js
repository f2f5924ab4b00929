// Accessible names for the parts of Bokeh's widgets that carry none, on
// every page (run by web/frame.js once the document is ready): a slider's
// handle (role=slider) takes its slider's title, a check box the text beside
// it. Bokeh draws each widget in a shadow root of its own, and the textbook
// adds parts as the reader scrolls, so every open shadow root is watched for
// new widgets. And the keyboard's place is kept: Bokeh draws a button again
// when its label or colour changes ("演示本步" while it replays, the chosen
// step), which drops the focus to the page; it goes back to the new button.

import {pageWide} from "./shared.js";

const watched = pageWide("a11y-watched", () => new WeakSet());
// The control that has the focus and the widget (shadow host) it belongs to.
let focused = null;

function deepActive() {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}

function keepFocus() {
  if (!focused || focused.el.isConnected || !focused.host.isConnected) return;
  const now = deepActive();
  if (now && now !== document.body && now !== document.documentElement) return;  // the reader moved on
  const again = focused.host.shadowRoot && focused.host.shadowRoot.querySelector(focused.el.tagName);
  if (again) again.focus({preventScroll: true});
}

function nameControls(root) {
  for (const handle of root.querySelectorAll(".noUi-handle[role=slider]:not([aria-label])")) {
    const title = root.querySelector(".bk-slider-title");
    const name = title ? title.textContent.replace(/[:：]\s*$/, "").trim() : "";
    if (name) handle.setAttribute("aria-label", name);
  }
  for (const box of root.querySelectorAll("input[type=checkbox]:not([aria-label])")) {
    const beside = box.parentNode && box.parentNode.querySelector(".bk-label");
    const name = beside ? beside.textContent.trim() : "";
    if (name) box.setAttribute("aria-label", name);
  }
}

function watch(root) {
  if (watched.has(root)) return;
  watched.add(root);
  nameControls(root);
  for (const el of root.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.shadowRoot) watch(node.shadowRoot);
        for (const el of node.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
      }
    }
    nameControls(root);
    keepFocus();
  }).observe(root, {childList: true, subtree: true});
}

/** Name the page's unnamed controls, now and as new ones appear; keep the focus on controls drawn again. */
export function nameUnnamedControls() {
  // Bokeh's widgets only: a student page has no BokehJS, and its controls carry
  // their names in its markup (nothing to watch, no observer on every change of the page).
  if (typeof window === "undefined" || !window.Bokeh) return;
  // Once per page, whichever bundle comes first (each explorable's and the page's carry this module).
  const root = document.documentElement;
  if (root.hasAttribute("data-ae-controls-named")) return;
  root.setAttribute("data-ae-controls-named", "");
  // Noted at each key press (a key is what the keyboard acts with; Chromium does not always
  // tell the document when the focus moves between shadow roots) and at each focus it does tell.
  const note = (el) => {
    const host = el && el.getRootNode && el.getRootNode().host;
    focused = host ? {el, host} : null;
  };
  document.addEventListener("keydown", () => note(deepActive()), true);
  document.addEventListener("focusin", (event) => note(event.composedPath()[0]), true);
  watch(document);
}
