// Installed in a page by benchmarks/latency.py (Playwright's page.evaluate):
// times each arrow-key press on a slider (or Space on a button) until the frame
// that shows the new readout has been painted.
//
// At the keydown (capture phase on the document, so before the slider's own
// handler) it notes performance.now() and the readout's text, then reads the
// text again at every change under the readout's root (a MutationObserver) and
// in every macrotask (a MessageChannel message, so the browser may render
// between two reads) until it differs; then it waits for the next
// requestAnimationFrame callback and one macrotask after it: by then the
// frame containing the change has been painted. The sample is the time from
// the keydown to that moment, in ms.
//
// Argument: {readout: CSS selector of the readout element, timeoutMs}.
// Returns the readout's current text; exposes window.__aeLatency with
// samples (ms), misses (presses whose readout did not change in timeoutMs)
// and wait(n, ms), a promise settled once n presses have been answered.
({readout, timeoutMs}) => {
  const deepAll = (root, sel, out) => {
    for (const el of root.querySelectorAll(sel)) out.push(el);
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) deepAll(el.shadowRoot, sel, out);
    return out;
  };
  const first = deepAll(document, readout, [])[0];
  if (!first) throw new Error("readout " + readout + " not found");
  // The readout's HTML is replaced when it is redrawn: query it afresh in its
  // (lasting) root every time, and search the whole page only if it moved.
  let root = first.getRootNode();
  const text = () => {
    let el = root.querySelector(readout);
    if (!el) {
      el = deepAll(document, readout, [])[0];
      if (!el) return null;
      root = el.getRootNode();
    }
    return (el.shadowRoot || el).textContent;  // a readout model draws inside its own shadow root
  };

  const channel = new MessageChannel();
  const queue = [];
  channel.port1.onmessage = () => { const task = queue.shift(); if (task) task(); };
  const macrotask = (task) => { queue.push(task); channel.port2.postMessage(null); };

  const probe = {samples: [], misses: 0, presses: 0, waiters: []};
  const settle = () => {
    const done = probe.samples.length + probe.misses;
    probe.waiters = probe.waiters.filter(([n, resolve]) => (done >= n ? (resolve(done), false) : true));
  };
  probe.wait = (n, ms) => new Promise((resolve, reject) => {
    probe.waiters.push([n, resolve]);
    settle();
    setTimeout(() => reject(new Error(`press ${n} not answered in ${ms} ms`)), ms);
  });

  // A change is also seen by a MutationObserver on the readout's root, at the end of the task that made
  // it: after a button's click (at the keyup) Chromium runs its next frame before other tasks, so the
  // poll alone would see such a change only after the frame that painted it, and time one frame more.
  let observed = null, check = () => {};
  const observe = () => {
    if (observed === root) return;
    observed = root;
    new MutationObserver(() => check()).observe(root, {subtree: true, childList: true, characterData: true});
  };

  let current = 0;
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft" && ev.key !== " ") return;  // a slider's keys, a button's
    const t0 = performance.now();
    const before = text();
    observe();
    const press = ++current;
    probe.presses++;
    let seen = false;  // this press's change was seen, or it was counted a miss
    // Whether this press is settled: its change seen, now or before, or the press counted a miss.
    check = () => {
      if (press === current && !seen && text() !== before) {
        seen = true;
        requestAnimationFrame(() => macrotask(() => {
          probe.samples.push(performance.now() - t0);
          settle();
        }));
      }
      return seen;
    };
    const poll = () => {
      if (press !== current || check()) return;
      if (performance.now() - t0 > timeoutMs) {
        seen = true;
        probe.misses++;
        settle();
      } else {
        macrotask(poll);
      }
    };
    macrotask(poll);
  }, {capture: true});
  window.__aeLatency = probe;
  return text();
}
