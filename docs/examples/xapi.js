// An example for authors: the explorables' activity events as xAPI statements, sent to your LRS.
//
// The explorables send nothing anywhere themselves. Their events (docs/embedding.md, "What the student
// did") reach your page: on each <attention-explorable> element, and on each iframe of the export when
// embed/resize.js is on the page. This script, copied into your site and configured below, turns each
// into an xAPI 1.0.3 statement and POSTs it to your Learning Record Store. Who the learner is comes from
// your site (here a placeholder); ask your LRS for its endpoint and credentials.
//
// <script src="xapi.js" data-endpoint="https://lrs.example/xapi/" data-auth="Basic ..."
//         data-actor-mbox="mailto:student@example.edu" data-activity="https://course.example/attention/"></script>
(function () {
  var me = document.currentScript;
  var endpoint = me.dataset.endpoint.replace(/\/?$/, "/") + "statements";
  var activity = me.dataset.activity || location.href.split("#")[0];
  var actor = {objectType: "Agent", mbox: me.dataset.actorMbox || "mailto:anonymous@example.invalid"};
  // ADL's verbs (http://adlnet.gov/expapi/verbs/): what each event says the learner did.
  var VERBS = {
    prediction: ["responded", "responded to"],
    checked: ["answered", "answered"],
    exercise: ["answered", "answered"],
    completed: ["completed", "completed"]
  };

  function statement(kind, d) {
    var id = activity + "#" + encodeURIComponent(d.name + (d.exercise ? "/" + d.exercise : d.question ? "/" + d.question : ""));
    var result = {};
    var response = d.response !== undefined ? d.response : d.prediction;
    if (response !== undefined && response !== null) result.response = String(response);
    if (typeof d.right === "boolean") result.success = d.right;
    if (kind === "completed") result.completion = true;
    return {
      actor: actor,
      verb: {id: "http://adlnet.gov/expapi/verbs/" + VERBS[kind][0], display: {"en-US": VERBS[kind][1]}},
      object: {objectType: "Activity", id: id,
               definition: {name: {"en-US": d.name + (d.exercise ? " " + d.exercise : d.question ? " " + d.question : "")}}},
      result: result,
      context: {language: d.lang === "en" ? "en" : "zh-CN", extensions: {"https://attention-explorable/detail": d}},
      timestamp: new Date().toISOString()
    };
  }

  function send(kind, detail) {
    var headers = {"Content-Type": "application/json", "X-Experience-API-Version": "1.0.3"};
    if (me.dataset.auth) headers.Authorization = me.dataset.auth;
    fetch(endpoint, {method: "POST", headers: headers, body: JSON.stringify(statement(kind, detail))})
      .catch(function (err) { console.warn("xAPI statement not sent:", err); });
  }

  Object.keys(VERBS).forEach(function (kind) {
    // Events bubble to the document from an element (across its shadow root) and from an iframe.
    document.addEventListener("attention-explorable-" + kind, function (event) { send(kind, event.detail); });
  });
})();
