// The page around an explorable or the textbook, once the document is ready
// (run by a CustomJS on the document's document_ready event, served or
// static): with ?embed=1 the page title hides; in an iframe the page reports
// its height to the host page (web/resize.js); a heading anchor (#sec-3-8)
// lands on its heading, also when clicked in the contents, although the
// headings live in Panel's shadow roots where the browser does not look;
// Bokeh's unnamed controls get names (web/a11y.js).

import {nameUnnamedControls} from "./a11y.js";
import {anchorId, deepQuery, hostOrigin, reportHeight} from "./dom.js";

const EMBED = "embed";

let readerMoved = false;

function goToAnchor() {
  const id = anchorId();
  if (!id) return;
  const land = () => {
    const target = deepQuery(document, `[id="${CSS.escape(id)}"]`);
    if (target && !readerMoved) {
      target.scrollIntoView({block: "start"});
      // In an iframe as tall as its content, the host page is what scrolls (web/resize.js).
      if (window.parent !== window) {
        const top = target.getBoundingClientRect().top + window.scrollY;
        window.parent.postMessage({type: "attention-explorable:anchor", top}, hostOrigin(window.location.search) || "*");
      }
    }
    return target;
  };
  land();
  // The page still settles (plots, fonts) after it is ready: land again unless the reader has moved, and
  // once all of it is live (web/start.js): on a slow device the explorables above the anchor come to life
  // seconds later, and where the browser anchors no scrolling (Safari's engine) each of them moves the text.
  for (const delay of [200, 600, 1500]) setTimeout(land, delay);
  if (!performance.getEntriesByName("ae-page-mounted").length) {
    document.addEventListener("ae-page-mounted", land, {once: true});
    document.fonts?.ready.then(land);
  }
}

function onContentsClick(event) {
  const link = event.composedPath().find((el) => el.tagName === "A" && (el.getAttribute("href") || "").startsWith("#"));
  if (!link) return;
  event.preventDefault();
  readerMoved = false;
  window.history.pushState(window.history.state, "", link.getAttribute("href"));
  goToAnchor();
}

export default function ({heading}) {
  try {
    if (new URLSearchParams(window.location.search).get(EMBED) === "1" && heading) heading.visible = false;
    if (window.parent !== window) reportHeight();
    for (const kind of ["wheel", "touchstart", "keydown"]) {
      window.addEventListener(kind, () => { readerMoved = true; }, {passive: true});
    }
    nameUnnamedControls();
    goToAnchor();
    window.addEventListener("hashchange", () => { readerMoved = false; goToAnchor(); });
    document.addEventListener("click", onContentsClick);
  } catch (err) {
    console.error("attention explorable (page):", err);
  }
}
