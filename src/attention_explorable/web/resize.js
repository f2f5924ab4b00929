// The host side of an embedded explorable's iframe (pasted by an author with the iframe, see
// docs/embedding.md; built to web/dist/page/resize.js, the export's embed/resize.js).
//
// Each page in an iframe of class "ae-embed-frame" reports its content's height (web/frame.js), and
// the iframe takes that height, so the page around it never shows a second scroll bar; it grows and
// shrinks with the content. An anchor in the iframe's address (steps.html?embed=1#sec-3-8) scrolls
// this page to it, unless the reader has moved already. A message is taken only from the window of one
// of these iframes, and, when its address is on the web, only from that address's origin.
//
// An iframe with `data-ae-follow="lang theme"` (either word alone too) follows this page: its language
// (<html lang>, Chinese or English) and its theme (dark where what shows behind the iframe is dark:
// Furo's, Material's or any toggle that changes the page's colours, and the reader's system where the
// page follows it), told to the frame whenever they change ({type: "attention-explorable:set"}).
//
// What the student does in a frame (a prediction, a check, an exercise answered, the explorable completed)
// becomes an event of the iframe element, `attention-explorable-<what>`, as on an <attention-explorable>.
// Pasting the script twice does no harm.
import {ACTIVITY} from "./host.js";
import {behindIsDark} from "./theme.js";

const FRAMES = "iframe.ae-embed-frame";
const PREFIX = "attention-explorable:";

/** The origin of `frame`'s address on the web, or null (a file, or no address): messages are then
 * checked by their window alone. */
function frameOrigin(frame) {
  try {
    const url = new URL(frame.getAttribute("src") || "", window.location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/** This page's language as the frames know them, or null. */
function pageLanguage() {
  const lang = (document.documentElement.lang || "").toLowerCase();
  return lang.startsWith("zh") ? "zh" : lang.startsWith("en") ? "en" : null;
}

function install() {
  if (window.attentionExplorableResize) return;
  window.attentionExplorableResize = true;
  let moved = false;
  for (const kind of ["wheel", "touchstart", "keydown"]) {
    window.addEventListener(kind, () => { moved = true; }, {passive: true});
  }
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || typeof data.type !== "string") return;
    for (const frame of document.querySelectorAll(FRAMES)) {
      if (frame.contentWindow !== event.source) continue;
      const origin = frameOrigin(frame);
      if (origin && event.origin !== origin) continue;
      if (data.type === "attention-explorable:height" && typeof data.height === "number" && isFinite(data.height)) {
        frame.style.height = Math.max(100, Math.ceil(data.height)) + "px";
      } else if (data.type === "attention-explorable:anchor" && typeof data.top === "number" && isFinite(data.top)
                 && !moved) {
        window.scrollTo(0, frame.getBoundingClientRect().top + window.scrollY + data.top);
      } else if (ACTIVITY.includes(data.type.slice(PREFIX.length)) && data.type.startsWith(PREFIX)) {
        // The student's activity in the frame (web/host.js announce): the iframe's own event, as the
        // element's (attention-explorable-checked ...), its detail the message's data.
        const {type, ...detail} = data;
        frame.dispatchEvent(new CustomEvent(`attention-explorable-${type.slice(PREFIX.length)}`, {detail, bubbles: true}));
      }
    }
  });

  // What each following frame was last told (again from nothing once it loads a page).
  const told = new WeakMap();
  const follow = () => {
    for (const frame of document.querySelectorAll(FRAMES)) {
      const wants = (frame.dataset.aeFollow || "").split(/\s+/);
      if (!frame.contentWindow || !(wants.includes("lang") || wants.includes("theme"))) continue;
      const message = {type: "attention-explorable:set"};
      if (wants.includes("lang") && pageLanguage()) message.lang = pageLanguage();
      if (wants.includes("theme")) message.theme = behindIsDark(frame) ? "dark" : "light";
      const key = JSON.stringify(message);
      if (told.get(frame) === key) continue;
      told.set(frame, key);
      frame.contentWindow.postMessage(message, frameOrigin(frame) || "*");
    }
  };
  const watched = new WeakSet();
  const watchFrames = () => {
    for (const frame of document.querySelectorAll(FRAMES)) {
      if (watched.has(frame)) continue;
      watched.add(frame);
      frame.addEventListener("load", () => { told.delete(frame); follow(); });
    }
    follow();
  };
  // A theme toggle or a language change writes an attribute of <html> or <body>; a frame may come later.
  const start = () => {
    const toggles = new MutationObserver(follow);
    for (const el of [document.documentElement, document.body]) if (el) toggles.observe(el, {attributes: true});
    new MutationObserver(watchFrames).observe(document.documentElement, {childList: true, subtree: true});
    if (window.matchMedia) window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", follow);
    watchFrames();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}

install();
