// The smallest host of an explorable module in the anywidget front-end form (web/head.js): a page
// that holds the module's state itself. `createModel(state)` is the model the module is given:
// get, set (which tells the module's listeners at once, as anywidget's model does), save_changes
// (nothing to save: the page is its own host), on and off. `mountModules()` renders each element of
// the page marked `data-ae-render="NAME"`, whose state is the JSON of its `<script type="application/json">`.

/** A model object for `render({model, el})`, holding `state` (a plain object of the module's keys). */
export function createModel(state) {
  const listeners = new Map();
  const values = {...state};
  return {
    get: (name) => values[name],
    set(name, value) {
      if (Object.is(values[name], value)) return;
      values[name] = value;
      for (const fn of [...(listeners.get(`change:${name}`) || [])]) fn(value);
    },
    save_changes() {},
    on(event, fn) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(fn);
    },
    off(event, fn) {
      if (listeners.has(event)) listeners.get(event).delete(fn);
    },
    send() {},
  };
}

/** Render every `[data-ae-render]` element of `root` with its module from `modules` (name -> module). */
export function mountModules(modules, root = document) {
  for (const host of root.querySelectorAll("[data-ae-render]")) {
    const module = modules[host.dataset.aeRender];
    const data = host.querySelector('script[type="application/json"]');
    if (!module || !data || host.dataset.aeMounted) continue;
    host.dataset.aeMounted = "1";
    const target = document.createElement("div");
    host.append(target);
    try {
      module.render({model: createModel(JSON.parse(data.textContent)), el: target});
    } catch (err) {
      console.error(`attention explorable (${host.dataset.aeRender}):`, err);
    }
  }
}
