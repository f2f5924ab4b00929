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
const next = () => {
  if (window.aeMountModules && window.aeMountModules(modules, document, null, 1)) {
    setTimeout(next, 0);
    return;
  }
  // A page painted before its script (the textbook) hid itself when opened on a linked state: shown now.
  document.documentElement.removeAttribute("data-ae-wait");
  performance.mark("ae-page-mounted");
};
// (An explorable registered from outside the package brings its module as text: imported first.)
if (document.querySelector("script[data-ae-module]") && window.aeImportModules) window.aeImportModules(modules).then(next);
else next();
