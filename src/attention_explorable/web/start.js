// A student page's script entry (web/dist/page/start.js, which
// attention_explorable/native.py inlines after the modules' scripts and their host): once the page is
// parsed, its page scripts run (web/host.js runScripts: the language switch, the video buttons, the
// frame's anchor and height), then its explorable modules are rendered one task each, in the page's order
// (a key the reader presses meanwhile is answered between two of them, not after all of them: the
// textbook holds twenty); `ae-page-mounted` is marked when all of it is live. An explorable registered from
// outside the package brings its module as text, imported first (web/host.js importModules).
performance.mark("ae-page-script");
window.aeRunScripts?.(window.aeModules);
const modules = (window.aeModules = window.aeModules || {});
// The textbook's explorables come from a file beside it (native.TEXTBOOK_SCRIPT): when it did not load,
// the page says so at its top (its text, written by the page's builder) rather than show dead parts.
if (!window.aeMountModules && document.querySelector("[data-ae-render]")) {
  const missing = document.querySelector(".ae-script-missing");
  if (missing) missing.hidden = false;
}
// Rendered one at a time, and none but the page's first before DOMContentLoaded: the browser holds that
// event back until the tasks queued before it have run, so rendering the textbook's twenty explorables in a
// row made anything that waits for the page wait for all of them. (The textbook's first explorable is
// live before this runs: it rendered as it was parsed.)
const parsed = () =>
  document.readyState === "complete" || performance.getEntriesByType?.("navigation")?.[0]?.domContentLoadedEventStart > 0;
const later = (then) => {
  if (parsed()) setTimeout(then, 0);
  else document.addEventListener("DOMContentLoaded", () => setTimeout(then, 0), {once: true});
};
const next = () => {
  if (window.aeMountModules && window.aeMountModules(modules, document, null, 1)) {
    later(next);
    return;
  }
  // A page painted before its script (the textbook) hid itself when opened on a linked state: shown now.
  document.documentElement.removeAttribute("data-ae-wait");
  performance.mark("ae-page-mounted");
  // (Said to the page's scripts too: the frame lands on the address's anchor again, web/frame.js.)
  document.dispatchEvent(new Event("ae-page-mounted"));
};
// (An explorable registered from outside the package brings its module as text: imported first.)
if (document.querySelector("script[data-ae-module]") && window.aeImportModules) window.aeImportModules(modules).then(next);
else if (document.querySelector("[data-ae-mounted]")) later(next);
else next();
