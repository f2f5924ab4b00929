// Deep links in the browser: an explorable's state read from the URL query
// (twin of attention_explorable/views/links.py, which documents the spec) and
// the address bar kept following the state, so a copied URL reopens the view.
import {echo, escapeHtml, fill, formatG, pageWide, parseNumber, readState} from "./shared.js";

export const TEXT_LIMIT = 200;
const TRUE = ["true", "1", "yes", "on"], FALSE = ["false", "0", "no", "off"];

/** [value, clamped] of `raw` for parameter `p`; value null when it is junk (views.links._read_one). */
function readOne(p, raw) {
  if (p.kind === "boolean") {
    const word = raw.trim().toLowerCase();
    return [TRUE.includes(word) ? true : FALSE.includes(word) ? false : null, false];
  }
  if (p.kind === "choice") return [p.choices.includes(raw) ? raw : null, false];
  if (p.kind === "text") return [Array.from(raw).length <= TEXT_LIMIT ? raw : null, false];
  const value = parseNumber(raw);
  if (value === null || (p.kind === "integer" && !Number.isInteger(value))) return [null, false];
  const clamped = Math.min(Math.max(value, p.lo), p.hi);
  return [clamped, clamped !== value];
}

/**
 * views.links.read_link: the parameters a link sets and the notices about
 * values clamped or ignored.
 * @param {object} spec the explorable's link spec
 * @param {string|URLSearchParams} query the URL's query (`location.search`)
 * @returns {[object, string[]]} [values, notices]
 */
export function readLink(spec, query) {
  const prefix = spec.prefix || "";
  const byName = new Map(spec.params.map((p) => [prefix + p.name, p]));
  const values = {}, notices = [], seen = new Set();
  for (const [key, raw] of new URLSearchParams(query)) {
    const p = byName.get(key);
    if (!p || seen.has(key)) continue;
    seen.add(key);
    const [value, clamped] = readOne(p, raw);
    const shown = escapeHtml(echo(raw));
    if (value === null) {
      notices.push(fill(spec.messages.junk, {name: escapeHtml(key), raw: shown}));
      continue;
    }
    if (clamped) {
      notices.push(fill(spec.messages.clamped, {
        name: escapeHtml(key), raw: shown, lo: formatG(p.lo), hi: formatG(p.hi), value: formatG(value)}));
    }
    values[p.name] = value;
  }
  return [values, notices];
}

/** views.links.link_values: `state` reset to the start of `values[spec.reset]`, then `values`. */
export function linkValues(spec, state, values) {
  const out = {...state};
  if (spec.reset && spec.reset in values) Object.assign(out, spec.starts[String(values[spec.reset])]);
  return Object.assign(out, values);
}

const names = (spec) => spec.params.map((p) => p.name);

function encode(value) {
  return typeof value === "number" ? String(value) : typeof value === "boolean" ? String(value) : value;
}

/**
 * The query that reopens `state`: `query` with this explorable's parameters
 * set where they differ from what the page opens with (the defaults, or the
 * start of the current step), removed where they do not.
 */
export function linkQuery(spec, state, query) {
  const params = new URLSearchParams(query);
  const prefix = spec.prefix || "";
  const base = spec.reset ? linkValues(spec, spec.defaults, {[spec.reset]: state[spec.reset]}) : spec.defaults;
  for (const p of spec.params) {
    const key = prefix + p.name, value = state[p.name];
    const keep = (p.name === spec.reset ? value !== spec.defaults[p.name] : value !== base[p.name])
      && !(p.kind === "text" && Array.from(value).length > TEXT_LIMIT);  // too long for a link: not kept
    if (keep) params.set(key, encode(value));
    else params.delete(key);
  }
  return params.toString();
}

/** Open the link of the page's URL: set the state it names, show its notices in `models.notice`. */
export function applyLink(state, models, config) {
  const spec = config.link;
  if (!spec) return;
  // An embed opens on its author's markup (spec.query), a page on its address.
  const [values, notices] = readLink(spec, spec.query ?? window.location.search);
  const next = linkValues(spec, readState(state, names(spec)), values);
  const changes = {};
  for (const name of names(spec)) if (next[name] !== state[name]) changes[name] = next[name];
  if (Object.keys(changes).length) state.setv(changes);
  if (notices.length && models.notice) {
    models.notice.text = escapeHtml(notices.join(" "));
    models.notice.visible = true;
  }
}

const timers = pageWide("link-timers", () => new WeakMap());

/**
 * Let the address bar follow the state, once a burst of changes settles
 * (`history.replaceState`: no history entry per move). Nothing happens in a
 * page that cannot rewrite its address, nor for an embed that leaves its host's
 * address alone (`spec.follow` false).
 */
export function followLink(state, config) {
  const spec = config.link;
  if (!spec || spec.follow === false) return;
  clearTimeout(timers.get(state));
  timers.set(state, setTimeout(() => {
    const search = linkQuery(spec, readState(state, names(spec)), window.location.search);
    const {pathname, hash} = window.location;
    const url = pathname + (search ? "?" + search : "") + hash;
    if (url === pathname + window.location.search + hash) return;
    try {
      window.history.replaceState(window.history.state, "", url);
    } catch (err) {
      console.warn("attention explorable: the address cannot follow the state here", err);
    }
  }, 150));
}

/** Levenshtein's edit distance between `a` and `b` (insertions, deletions and substitutions of one character). */
export function editDistance(a, b) {
  let row = Array.from({length: b.length + 1}, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next.push(Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    row = next;
  }
  return row[b.length];
}

/**
 * What the console says of an author's attribute `name` that is none of the explorable's parameters
 * `known`: that it is ignored, and the known name closest to it (within a third of its length, at least
 * two edits), or the list of them.
 */
export function unknownAttribute(name, known, explorable = "") {
  const [closest] = known.map((k) => [editDistance(name.toLowerCase(), k), k]).sort((x, y) => x[0] - y[0]);
  const near = closest && closest[0] <= Math.max(2, Math.floor(name.length / 3));
  const which = explorable ? ` name="${explorable}"` : "";  // which tag, on a page of several
  return `<attention-explorable${which}>: the attribute ${name} is not a parameter of this explorable and is ignored; ` +
    (near ? `did you mean ${closest[1]}?` : `its parameters are ${known.join(", ")}.`);
}

/**
 * The query an explorable of this page opens on: `initial` (the author's
 * markup, its parameters behind the explorable's prefix), then, only with deep
 * links, the host page's own address, which wins.
 * @param {object} link the explorable's link spec (views.links)
 * @param {Object<string, string>} initial parameter name -> raw value, as written by the author
 * @param {boolean} deepLinks whether the host's address is read and written
 * @param {string} explorable its name, which the console's warning of an unknown attribute names
 * @returns {string}
 */
export function startQuery(link, initial, deepLinks, explorable = "") {
  const params = new URLSearchParams();
  const known = link.params.map((p) => p.name);
  for (const [name, raw] of Object.entries(initial || {})) {
    if (!known.includes(name)) console.warn(unknownAttribute(name, known, explorable));
    params.set((link.prefix || "") + name, raw);
  }
  if (deepLinks) for (const [key, raw] of new URLSearchParams(window.location.search)) params.set(key, raw);
  return params.toString();
}
