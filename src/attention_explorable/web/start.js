// A student page's script entry when the page holds no emulated explorable (web/dist/page/start.js, which
// attention_explorable/native.py inlines after the modules' scripts and their host): once the page is
// parsed, its page scripts run (web/host.js runScripts: the language switch, the video buttons, the
// frame's anchor and height), then its explorable modules are rendered one task each, in the page's order
// (a key the reader presses meanwhile is answered between two of them, not after all of them: the
// textbook holds twenty); `ae-page-mounted` is marked when all of it is live.
performance.mark("ae-page-script");
window.aeRunScripts?.(window.aeModules);
const next = () => {
  if (window.aeMountModules && window.aeMountModules(window.aeModules, document, null, 1)) {
    setTimeout(next, 0);
    return;
  }
  // A page painted before its script (the textbook) hid itself when opened on a linked state: shown now.
  document.documentElement.removeAttribute("data-ae-wait");
  performance.mark("ae-page-mounted");
};
next();
