// The host side of an embedded explorable's iframe (pasted by an author with
// the iframe, see docs/embedding.md): each page in an iframe of class
// "ae-embed-frame" reports its content's height (web/frame.js), and the
// iframe takes that height, so the page around it never shows a second
// scroll bar; it grows and shrinks with the content. An anchor in the iframe's
// address (steps.html?embed=1#sec-3-8) scrolls this page to it, unless the
// reader has moved already. Pasting it twice does no harm.
(function () {
  if (window.attentionExplorableResize) return;
  window.attentionExplorableResize = true;
  var moved = false;
  ["wheel", "touchstart", "keydown"].forEach(function (kind) {
    window.addEventListener(kind, function () { moved = true; }, {passive: true});
  });
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data.type !== "string") return;
    var frames = document.querySelectorAll("iframe.ae-embed-frame");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow !== event.source) continue;
      if (data.type === "attention-explorable:height" && typeof data.height === "number" && isFinite(data.height)) {
        frames[i].style.height = Math.max(100, Math.ceil(data.height)) + "px";
      } else if (data.type === "attention-explorable:anchor" && typeof data.top === "number" && isFinite(data.top)
                 && !moved) {
        window.scrollTo(0, frames[i].getBoundingClientRect().top + window.scrollY + data.top);
      }
    }
  });
})();
