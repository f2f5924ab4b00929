// The smallest host of an explorable module in the anywidget front-end form (web/head.js): a page
// that holds the module's state itself. `createModel(state)` is the model the module is given:
// get, set (which tells the module's listeners at once, as anywidget's model does), save_changes
// (nothing to save: the page is its own host), on and off. `mountModules()` renders each element of
// the page marked `data-ae-render="NAME"`, whose state is the JSON of its `<script type="application/json">`;
// a `<script type="application/json" data-ae-link>` beside it is its deep links' spec (views/links.py): the
// state the address names is set before the module renders, and the address follows the state. A page that
// carries the class (web/classroom.js as `aeModules.classroom`, its config in #ae-class-config) joins the room
// its address names with each module that leaves a box for the class panel (the steps).

import {hostOrigin, reportHeight} from "./dom.js";
import {followLanguage} from "./language.js";
import {linkQuery, linkValues, readLink, startQuery} from "./links.js";

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
    // What the module tells its host (anywidget's custom message to the kernel): here the page's own
    // parts hear it, with on("msg:sent", fn).
    send(content) {
      for (const fn of [...(listeners.get("msg:sent") || [])]) fn(content);
    },
  };
}

/** What a module tells of the student's activity (its `model.send({event, ...})`), and so what an author's
 * page hears: a DOM event `attention-explorable-<event>` whose `detail` is the rest of the message. */
export const ACTIVITY = ["prediction", "checked", "exercise", "completed"];

/**
 * Tell the page around `host` of the student's activity in its module (`message`, from `model.send`):
 * a CustomEvent `attention-explorable-<event>` (bubbling, across shadow roots: an <attention-explorable>
 * element hears it) with `detail` = {name, lang, ...the message's other keys}; and, in an iframe, the same
 * to the embedding page ({type: "attention-explorable:<event>", ...detail}: web/resize.js makes it the
 * iframe's event). Nothing is sent anywhere else.
 */
export function announce(host, message) {
  if (!message || !ACTIVITY.includes(message.event)) return;
  const {event, ...rest} = message;
  const tag = ((host.aeModel && host.aeModel.get("lang")) || host.closest("[lang]")?.getAttribute("lang") || "").toLowerCase();
  const lang = tag.startsWith("zh") ? "zh" : tag.startsWith("en") ? "en" : tag;  // zh-Hans, en-GB: the course's two
  const detail = {name: host.dataset.aeRender, lang, ...rest};
  host.dispatchEvent(new CustomEvent(`attention-explorable-${event}`, {detail, bubbles: true, composed: true}));
  if (window.parent !== window) {
    window.parent.postMessage({type: `attention-explorable:${event}`, ...detail}, hostOrigin(window.location.search) || "*");
  }
}

/** What `html` (text with its characters escaped, as readLink writes notices) says, as plain text. */
const plainText = (html) => new DOMParser().parseFromString(html, "text/html").body.textContent;

/**
 * The deep link of a module's page: the state `spec` (views/links.py) reads from the address, said in a
 * notice where a value was clamped or ignored, and the address kept following the model's linked keys
 * (`history.replaceState` once a burst of changes settles; no entry per move). A link that set the state
 * is written again at once in its shortest form (a value equal to the state it opens on is left out).
 */
function followAddress(host, model, spec, embed) {
  let query = window.location.search, follows = true;
  if (embed) {  // in an author's page (web/shadow.js): the markup's attributes, the address only if asked
    if (!embed.deepLinks) spec = {...spec, prefix: "", messages: spec.attribute_messages || spec.messages};
    query = startQuery(spec, embed.initial, embed.deepLinks, host.dataset.aeRender);
    follows = Boolean(embed.deepLinks);
  }
  const [values, notices] = readLink(spec, query);
  // (A link's step opens at that step's start, as the step buttons do: linkValues applies the spec's starts.)
  const now = Object.fromEntries(spec.params.map((p) => [p.name, model.get(p.name)]));
  const state = Object.keys(values).length ? linkValues(spec, now, values) : {};
  for (const [name, value] of Object.entries(state)) model.set(name, value);
  if (notices.length) {
    const notice = document.createElement("p");
    notice.className = "ae-error ae-input-notice";
    notice.setAttribute("role", "alert");
    notice.textContent = notices.map(plainText).join(" ");
    host.prepend(notice);
  }
  if (!follows) return;
  let timer = 0;
  const follow = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const state = Object.fromEntries(spec.params.map((p) => [p.name, model.get(p.name)]));
      const search = linkQuery(spec, state, window.location.search);
      const {pathname, hash} = window.location;
      try {
        window.history.replaceState(window.history.state, "", pathname + (search ? `?${search}` : "") + hash);
      } catch (err) {
        console.warn("attention explorable: the address cannot follow the state here", err);
      }
    }, 150);
  };
  for (const p of spec.params) model.on(`change:${p.name}`, follow);
  if (values && Object.keys(values).length) follow();  // the address names the view as opened, no more
}

/**
 * Add to `modules` (name -> module) each module of an explorable registered from outside the package that
 * `root` carries as text (`<script type="text/plain" data-ae-module=NAME>`, modules.outside_modules),
 * imported from a Blob URL (it is one ES module with its imports bundled; the page's policy allows blob:).
 * Resolves once every one is in; one that does not load is said in the console, the others kept.
 */
export async function importModules(modules, root = document) {
  await Promise.all([...root.querySelectorAll("script[data-ae-module]")].map(async (el) => {
    const url = URL.createObjectURL(new Blob([el.textContent], {type: "text/javascript"}));
    try {
      modules[el.dataset.aeModule] = (await import(url)).default;
    } catch (err) {
      console.error(`attention explorable: the module ${el.dataset.aeModule} did not load`, err);
    } finally {
      URL.revokeObjectURL(url);
    }
  }));
  return modules;
}

/**
 * `value` (a module's state or link spec, parsed) with each `{"$shared": key}` among its objects replaced by
 * that part of the page's table (`<script type="application/json" id="ae-shared">`, written once before
 * the page's modules: the parts their states share, native.NativePage). Arrays are not looked into: no
 * part of one is ever shared. A key the table lacks is an error naming it.
 */
function sharedParts(value, root) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  if (typeof value.$shared === "string") {
    const table = sharedTable(root);
    if (!table || !Object.hasOwn(table, value.$shared)) throw new Error(`no shared part ${value.$shared} in the page`);
    return table[value.$shared];
  }
  for (const name of Object.keys(value)) value[name] = sharedParts(value[name], root);
  return value;
}

const sharedTables = new WeakMap();
const deepFreeze = (value) => {
  if (value && typeof value === "object") for (const item of Object.values(Object.freeze(value))) deepFreeze(item);
  return value;
};
function sharedTable(root) {
  if (!sharedTables.has(root)) {
    const script = root.querySelector("script#ae-shared");
    // (Frozen: one object serves every module that shares it, so none may change it for the others.)
    sharedTables.set(root, script ? deepFreeze(JSON.parse(script.textContent)) : null);
  }
  return sharedTables.get(root);
}

/**
 * Render every `[data-ae-render]` element of `root` with its module from `modules` (name -> module), or
 * only the first `limit` not rendered yet (in the page's order).
 * `embed` is null on a page of its own (the address is the state's); in an author's page (web/shadow.js)
 * `{deepLinks, initial}`: the element's attributes are its state, the host's address only with deep links.
 * Returns how many it rendered.
 */
export function mountModules(modules, root = document, embed = null, limit = Infinity) {
  let left = limit, mounted = 0;
  for (const host of root.querySelectorAll("[data-ae-render]")) {
    const module = modules[host.dataset.aeRender];
    const data = host.querySelector('script[type="application/json"]:not([data-ae-link])');
    if (!module || !data || host.dataset.aeMounted) continue;
    if (left-- <= 0) break;
    host.dataset.aeMounted = "1";
    mounted += 1;
    const target = document.createElement("div");
    host.append(target);
    try {
      const model = host.aeModel = createModel(sharedParts(JSON.parse(data.textContent), root));
      const link = host.querySelector("script[data-ae-link]");
      if (link) followAddress(host, model, sharedParts(JSON.parse(link.textContent), root), embed);
      model.on("msg:sent", (message) => announce(host, message));
      module.render({model, el: target});
      const klass = modules.classroom;
      if (klass && !embed) joinWhenConfigured(klass, model, target, host.dataset.aeRender);
    } catch (err) {
      console.error(`attention explorable (${host.dataset.aeRender}):`, err);
    }
  }
  return mounted;
}

/**
 * The class joined with the module just rendered (`web/classroom.js` joinClass), once the class's config
 * (`#ae-class-config`, written at the page's end) is parsed: a module rendered while the page is still
 * being parsed (the textbook's first) joins at DOMContentLoaded.
 */
function joinWhenConfigured(klass, model, el, name) {
  const join = () => {
    const config = document.getElementById("ae-class-config");
    if (!config) return;
    try {
      klass.joinClass({model, el, config: JSON.parse(config.textContent)});
    } catch (err) {
      console.error(`attention explorable (${name}):`, err);
    }
  };
  if (document.getElementById("ae-class-config") || document.readyState !== "loading") join();
  else document.addEventListener("DOMContentLoaded", join, {once: true});
}

/**
 * Run each `[data-ae-script=NAME]` element's page script in `root`: `modules[NAME]({hint: element,
 * ...settings})`, its settings the JSON inside it (the textbook's video buttons and loading, the presenter
 * keys: attention_explorable.explorables.base.ScriptedPane on a student page).
 */
export function runScripts(modules, root = document) {
  for (const el of root.querySelectorAll("[data-ae-script]")) {
    if (el.dataset.aeRan) continue;
    el.dataset.aeRan = "1";
    const run = modules && modules[el.dataset.aeScript];
    const data = el.querySelector('script[type="application/json"]');
    try {
      if (run) run({hint: el, ...(data ? JSON.parse(data.textContent) : {})});
    } catch (err) {
      console.error(`attention explorable (${el.dataset.aeScript}):`, err);
    }
  }
}

/**
 * The page of one module explorable: its language switch remembers and follows the reader's choice (as
 * every page's does, web/language.js). In an author's iframe (`?embed=1`) its title and language switch
 * give way to the explorable (`ae-embedded` on the root), and inside a frame it tells the host page its
 * content's height whenever that changes (the message web/resize.js takes), so the frame grows and
 * shrinks with it and shows no scroll bar of its own.
 */
export function framePage() {
  const anchor = document.querySelector("a.ae-language[data-ae-other]");
  if (anchor) {  // its language switch: the reader's choice remembered and followed (web/language.js)
    const {aeLanguage: language, aeOther: other, aeTarget: target} = anchor.dataset;
    followLanguage({anchor, hide: () => { anchor.hidden = true; }, language, other, target: target || ""});
  }
  if (new URLSearchParams(window.location.search).get("embed") === "1") {
    document.documentElement.classList.add("ae-embedded");
  }
  if (window.parent !== window) reportHeight();
}
