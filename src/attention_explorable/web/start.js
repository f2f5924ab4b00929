// A student page's script entry when the page holds no emulated explorable (web/dist/page/start.js, which
// attention_explorable/native.py inlines after the modules' scripts and their host): once the page is
// parsed, every explorable module is rendered, then its page scripts run (web/host.js runScripts: the
// language switch, the video buttons, the frame's anchor and height); `ae-page-mounted` is marked when all
// of it is live.
performance.mark("ae-page-script");
window.aeMountModules?.(window.aeModules);
window.aeRunScripts?.(window.aeModules);
// A page painted before its script (the textbook) hid itself when opened on a linked state: shown now.
document.documentElement.removeAttribute("data-ae-wait");
performance.mark("ae-page-mounted");
