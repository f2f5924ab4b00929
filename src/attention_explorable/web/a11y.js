// Accessible names for the parts of Bokeh's widgets that carry none, on
// every page (run by web/frame.js once the document is ready): a slider's
// handle (role=slider) takes its slider's title, a check box the text beside
// it. Bokeh draws each widget in a shadow root of its own, and the textbook
// adds parts as the reader scrolls, so every open shadow root is watched for
// new widgets.

const watched = new WeakSet();

function nameControls(root) {
  for (const handle of root.querySelectorAll(".noUi-handle[role=slider]:not([aria-label])")) {
    const title = root.querySelector(".bk-slider-title");
    const name = title ? title.textContent.replace(/[:：]\s*$/, "").trim() : "";
    if (name) handle.setAttribute("aria-label", name);
  }
  for (const box of root.querySelectorAll("input[type=checkbox]:not([aria-label])")) {
    const beside = box.parentNode && box.parentNode.querySelector(".bk-label");
    const name = beside ? beside.textContent.trim() : "";
    if (name) box.setAttribute("aria-label", name);
  }
}

function watch(root) {
  if (watched.has(root)) return;
  watched.add(root);
  nameControls(root);
  for (const el of root.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.shadowRoot) watch(node.shadowRoot);
        for (const el of node.querySelectorAll("*")) if (el.shadowRoot) watch(el.shadowRoot);
      }
    }
    nameControls(root);
  }).observe(root, {childList: true, subtree: true});
}

/** Name the page's unnamed controls, now and as new ones appear. */
export function nameUnnamedControls() {
  watch(document);
}
