// Runs in the page's head (inlined by the page builder, attention_explorable/site.py):
// the textbook brings each explorable and exercise to life when it nears the screen,
// not all at load. The page's Bokeh document holds the text as one root and each
// explorable and exercise as a root of its own, named "ae-when-seen:<key>"; the text
// shows a slot for each (class ae-slot, data-ae-slot=<key>) with its first state as
// plain HTML. window.aeEmbed, called by Bokeh's embedding script instead of
// Bokeh.embed.embed_items, builds the text at once and each part's views only when
// its slot comes within half a screen of the viewport, one part at a time (or every part
// at once with ?explorables=all).
// The part's models are in the document from the start: a deep link sets their state
// before they are drawn. A page without such roots is embedded as Bokeh does it.
(function () {
  var PREFIX = "ae-when-seen:";

  function findAll(root, selector, found) {
    if (root.shadowRoot) findAll(root.shadowRoot, selector, found);
    root.querySelectorAll(selector).forEach(function (el) { found.push(el); });
    root.querySelectorAll("*").forEach(function (el) {
      if (el.shadowRoot) findAll(el.shadowRoot, selector, found);
    });
    return found;
  }

  window.aeEmbed = async function (docsJson, renderItems) {
    var Bokeh = window.Bokeh;
    var item = renderItems.length === 1 ? renderItems[0] : null;
    if (item === null || item.docid == null) return Bokeh.embed.embed_items(docsJson, renderItems);
    performance.mark("ae-embed");  // what the benchmarks read: the embedding starts, the text is built, a part
    var doc, waiting = {}, elements;
    try {
      var Document = Bokeh.require("document").Document;
      var json = typeof docsJson === "string"
        ? JSON.parse(Bokeh.require("core/util/string").unescape(docsJson)) : docsJson;
      doc = Document.from_json(json[item.docid]);
      doc.roots().forEach(function (root) {
        if ((root.name || "").indexOf(PREFIX) === 0) waiting[root.name.slice(PREFIX.length)] = root;
      });
      Object.keys(waiting).forEach(function (key) { doc.remove_root(waiting[key]); });
      // The element of each root, in the order of the document's roots (Bokeh's own lookup).
      elements = doc.roots().map(function (root) { return document.getElementById(item.roots[root.id]); });
    } catch (err) {
      // A BokehJS whose inner modules moved: the page is embedded as Bokeh does it, every part at
      // once below the text (tests/browser/test_when_seen.py fails, so that this is seen and mended).
      console.warn("attention explorable: parts built with the page:", err);
      return Bokeh.embed.embed_items(docsJson, renderItems);
    }
    performance.mark("ae-document");
    var views = await Bokeh.embed.add_document_standalone(doc, document.body, elements, item.use_for_title);
    performance.mark("ae-text-built");

    // One part at a time, in the order they come near: the nearest is drawn first, and the
    // browser paints between two parts instead of after all of them.
    var queue = [], working = false;
    function bring(key, slot) {
      if (waiting[key] === undefined || queue.some(function (q) { return q.key === key; })) return;
      queue.push({key: key, slot: slot});
      if (!working) next();
    }
    function next() {
      var entry = queue.shift();
      working = entry !== undefined;
      if (!working) return;
      var root = waiting[entry.key];
      delete waiting[entry.key];
      var target = document.createElement("div");
      target.className = "ae-part";
      var slot = entry.slot;
      slot.replaceChildren(target);
      slot.style.padding = "0";  // the room kept for the part's controls is the part's now
      slot.classList.add("ae-slot-live");
      elements[doc.roots().length] = target;  // where the next root's view is built
      performance.mark("ae-part:" + entry.key);
      doc.add_root(root);  // its views are built in the promise jobs that follow
      setTimeout(function () {
        window.dispatchEvent(new CustomEvent("ae-part-built", {detail: {key: entry.key}}));
        next();
      }, 0);
    }

    var query = new URLSearchParams(window.location.search);
    var all = query.get("explorables") === "all";
    var observer = all || !("IntersectionObserver" in window) ? null : new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        observer.unobserve(entry.target);
        bring(entry.target.getAttribute("data-ae-slot"), entry.target);
      });
    }, {rootMargin: "50% 0px 50% 0px"});
    function scan(root) {
      findAll(root, ".ae-slot[data-ae-slot]", []).forEach(function (slot) {
        // A part needed at once with a parameter (the class panel's, with ?room=) does not wait.
        var now = slot.getAttribute("data-ae-now-with");
        if (observer === null || (now && query.has(now))) bring(slot.getAttribute("data-ae-slot"), slot);
        else observer.observe(slot);
      });
    }
    scan(document);
    window.aeBringAll = function () {  // a reader (or a test) who wants every part now
      findAll(document, ".ae-slot[data-ae-slot]", []).forEach(function (slot) {
        if (observer !== null) observer.unobserve(slot);
        bring(slot.getAttribute("data-ae-slot"), slot);
      });
    };
    return [views];
  };
})();
