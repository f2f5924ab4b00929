// Presenter keys for a page with one steps explorable (a Panel ESM
// component): 1, 2, 3 choose a step and D demonstrates it, by clicking the
// same buttons a mouse would; the instructor's page adds R (reveal) and N
// (new round) through the component's `targets` (key -> CSS selector).
// Keys typed into a box stay text. The listener sits on the document, since
// key events cross the shadow roots of the page.
// An embedded page (?embed=1) keeps the keys and leaves out the hint.

function find(root, selector) {
  const hit = root.querySelector(selector);
  if (hit) return hit;
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) {
      const inner = find(el.shadowRoot, selector);
      if (inner) return inner;
    }
  }
  return null;
}

const TARGETS = {"1": ".ae-step-1", "2": ".ae-step-2", "3": ".ae-step-3", "d": ".ae-demonstrate", "D": ".ae-demonstrate"};

function onKey(event, targets) {
  const origin = event.composedPath()[0];
  const typing = origin && (["INPUT", "TEXTAREA", "SELECT"].includes(origin.tagName) || origin.isContentEditable);
  if (typing || event.ctrlKey || event.metaKey || event.altKey || !(event.key in targets)) return;
  const host = find(document, targets[event.key]);
  const button = host && (host.shadowRoot || host).querySelector("button");
  if (button) {
    button.click();
    event.preventDefault();
  }
}

export function render({model, el}) {
  const hint = document.createElement("span");
  hint.className = "ae-keys";
  hint.style.fontSize = "14px";
  hint.textContent = model.hint;
  if (new URLSearchParams(window.location.search).get("embed") !== "1") el.append(hint);
  const targets = {...TARGETS};
  for (const [key, selector] of Object.entries(model.targets || {})) {
    targets[key.toLowerCase()] = selector;
    targets[key.toUpperCase()] = selector;
  }
  const listener = (event) => onKey(event, targets);
  document.addEventListener("keydown", listener);
  model.on("remove", () => document.removeEventListener("keydown", listener));
}
