// Runs in the page's head, before anything is painted (inlined by the page builder,
// attention_explorable/first_paint.py): a page opened with a deep link (any query
// parameter but lang, embed, room and explorables: ?step=3&temperature=0.05) shows
// no first paint, which holds the explorables' default state, but waits for the
// live page, which opens on the linked state. A page never shows another state first.
(function () {
  var kept = {lang: 1, embed: 1, room: 1, explorables: 1};
  var names = [];
  new URLSearchParams(window.location.search).forEach(function (value, name) { names.push(name); });
  for (var i = 0; i < names.length; i++) {
    if (!kept[names[i]]) {
      document.documentElement.classList.add("ae-deep-link");
      return;
    }
  }
})();

// The page's scripts (BokehJS and the page bundle) are evaluated only once the first
// paint is on the screen: a page whose script arrives quickly (cached, from a file) would
// otherwise evaluate it first and paint after. The page builder (site.py) takes out the
// script tags, so that nothing is fetched before the first paint (a fetch begun before it
// counts, for Lighthouse's model of a slow phone, into the largest paint), and Bokeh's
// embedding asks for the scripts through window.aeLoadScripts. A page in a hidden tab,
// whose frames do not come, loads them after a quarter of a second.
window.aeLoadScripts = function (urls, then) {
  var started = false;
  function load(i) {
    if (i === urls.length) return then();
    var script = document.createElement("script");
    script.src = urls[i];
    script.onload = function () { load(i + 1); };
    script.onerror = function () { console.error("attention explorable: could not load " + urls[i]); };
    document.head.appendChild(script);
  }
  function start() {
    if (started) return;
    started = true;
    load(0);
  }
  function afterPaint() {
    requestAnimationFrame(function () { setTimeout(start, 0); });
    setTimeout(start, 250);
  }
  if (document.readyState !== "loading") afterPaint();
  else document.addEventListener("DOMContentLoaded", afterPaint, {once: true});
};
