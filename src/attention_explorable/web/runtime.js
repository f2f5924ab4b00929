// The student page's script entry (web/dist/page/runtime.js, which
// attention_explorable/native.py inlines after the modules' scripts): mounts
// the page (web/native.js) from its spec, the JSON in #ae-page-spec, once the
// page is parsed. The textbook's parts come to life one task each (its first
// explorable first), the rest of a page at once; `ae-page-mounted` is marked
// when all of it is live.
import {PART, mount, readSpec} from "./native.js";

const spec = document.getElementById("ae-page-spec");
// An explorable registered from outside the package brings its own module, as text in the page.
const more = [...document.querySelectorAll("script[data-ae-module]")].map(async (el) => [el.dataset.aeModule,
  (await import(URL.createObjectURL(new Blob([el.textContent], {type: "text/javascript"})))).default]);

// A page painted before its script (the textbook) hid itself when opened on a linked state: shown now.
const show = () => document.documentElement.removeAttribute("data-ae-wait");
// The explorables written as one module (web/host.js): the page's first one comes to life before the
// rest of the page (it is often the first a reader uses: the textbook's 3.7.6), the others once the
// rest is live.
const done = () => {
  show();
  window.aeRunScripts?.(window.aeModules);
  window.aeMountModules?.(window.aeModules);
  performance.mark("ae-page-mounted");
};

function start(extra) {
  performance.mark("ae-page-script");
  window.aeMountModules?.(window.aeModules, document, null, 1);
  try {
    window.aePage = mount(readSpec(spec.textContent), {...window.aeModules, ...extra}, document, {parts: PART, done});
  } catch (err) {
    show();
    throw err;
  }
}

if (spec && !more.length) start({});
else if (spec) {
  Promise.all(more).then((entries) => start(Object.fromEntries(entries)),
    (err) => console.error("attention explorable: a module of the page did not load", err));
}
