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
