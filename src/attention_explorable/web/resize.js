// The host side of an embedded explorable's iframe (pasted by an author with
// the iframe, see docs/embedding.md): each page in an iframe of class
// "ae-embed-frame" reports its content's height (web/frame.js), and the
// iframe takes that height, so the page around it never shows a second
// scroll bar. Pasting it twice does no harm.
(function () {
  if (window.attentionExplorableResize) return;
  window.attentionExplorableResize = true;
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== "attention-explorable:height" || typeof data.height !== "number") return;
    var frames = document.querySelectorAll("iframe.ae-embed-frame");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        var height = Math.max(100, Math.min(20000, Math.ceil(data.height)));
        frames[i].style.height = height + "px";
      }
    }
  });
})();
