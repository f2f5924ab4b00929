// A student's page in a room (twin of attention_explorable/classroom/channel.py, the
// server's end): with ?room=CODE in the address, the class panel shows, the page opens
// its one class socket (/class/socket), joins the room with the anonymous id the server
// gave it (kept in localStorage; the first join gets one), submits the prediction when the student presses "演示本步" or "提交预测",
// and draws the server's receipt as the confirmation "已提交". From the server come only
// this student's receipts, the room's step (when the students follow the instructor), whether
// voting on it is closed or its answer revealed, and a new round. While the vote is open, the
// page's demonstration (the answer) waits (web/shared.js votingOpen). Run by Bokeh's CustomJS on the document's document_ready, on the
// explorable's step and on the two buttons.
import {classLinks as links, escapeHtml, fill, formatFixed, formatG, goToStepStart, votingOpen} from "./shared.js";
import {parsePrediction} from "./prediction.js";

const ID_KEY = "attention-explorable-student";
// The close code of a socket the server refused (an unknown room, a malformed id, too many
// connections from one address); its reason names which.
export const REFUSED = 4001;

// An id the server issued (classroom/channel.py StudentIds): 32 hex digits, "-", 22 of signature.
const SIGNED_ID = /^[0-9a-f]{32}-[A-Za-z0-9_-]{22}$/;

/** The anonymous id this browser was given, kept across reloads in localStorage; null before the first join. */
export function studentId(storage = globalThis.localStorage) {
  try {
    const id = storage.getItem(ID_KEY);
    return SIGNED_ID.test(id || "") ? id : null;
  } catch (err) {
    return null;
  }
}

/** Keep the id the server gave (where localStorage fails, the page keeps it while it is open). */
export function keepStudentId(id, storage = globalThis.localStorage) {
  if (!SIGNED_ID.test(id || "")) return;
  try { storage.setItem(ID_KEY, id); } catch (err) { /* private mode: the link keeps it */ }
}

/** The wait before joining again after the server said "wait" (too many new students at once), in ms. */
export function waitDelay(random = Math.random) {
  return 5000 + Math.floor(random() * 10000);
}

/**
 * The room code an address's query asks for (`?room=ab12cd` -> "AB12CD"): null when it asks for
 * none, `false` when what it names cannot be a room code (`rule`: the server's alphabet and length,
 * classroom/store.py). Only a code that passes is ever shown or sent.
 * @param {string} search the query, with or without its "?"
 * @param {{alphabet: string, length: number}} rule
 * @returns {string|null|false}
 */
export function roomOf(search, rule) {
  const raw = new URLSearchParams(search).get("room");
  if (raw === null || raw.trim() === "") return null;
  const code = raw.trim().toUpperCase();
  const chars = Array.from(code);
  return chars.length === rule.length && chars.every((c) => rule.alphabet.includes(c)) ? code : false;
}

/**
 * The class socket's URL for a page at `where` (ws: or wss: as the page), or null for a page with
 * no server (file:).
 * @param {Location} where
 * @param {string} path the socket's path on the server
 */
export function socketUrl(where, path) {
  if (where.protocol !== "http:" && where.protocol !== "https:") return null;
  return (where.protocol === "https:" ? "wss://" : "ws://") + where.host + path;
}

/**
 * Whether the last prediction reached the server, as one sentence for the connection-lost notice.
 * @param {{sent: object|null, acknowledged: object|null, receipt: object|null}} link
 * @param {object} strings class_lost_received, class_lost_not_received, class_lost_none
 */
export function classStatus(link, strings) {
  const {sent, receipt} = link;
  if (sent && !(receipt && receipt.seq === sent.seq && receipt.ok)) {
    return fill(strings.class_lost_not_received, {step: sent.step, value: formatG(sent.value)});
  }
  const ok = link.acknowledged;
  if (ok) return fill(strings.class_lost_received, {step: ok.step, value: formatG(ok.value)});
  return strings.class_lost_none;
}

/** Show plain `message` in a Panel HTML model (its text is escaped HTML: escaped once to be text, once for the model). */
function show(model, message) {
  const text = escapeHtml(escapeHtml(message));
  if (model.text !== text) model.text = text;
  if (model.visible !== (message !== "")) model.visible = message !== "";
}

/** The room's vote on the step on screen, as one line: closed, revealed, or "" while it is open (or another step). */
export function voteStatus(link, state, strings, now = Date.now()) {
  if (!link.joined || link.roomStep !== state.step) return "";
  if (link.revealed) return strings.class_revealed;
  if (link.closed) return strings.class_voting_closed;
  if (link.deadline) return fill(strings.class_voting_closes_in, {seconds: Math.max(0, Math.ceil((link.deadline - now) / 1000))});
  return "";
}

/** While a countdown runs, draw the vote's line every second (the server's `room` message ends it). */
function tick(link, state, models, config) {
  clearInterval(link.ticking);
  link.ticking = link.deadline && !link.closed
    ? setInterval(() => (link.deadline && !link.closed ? draw(link, state, models, config) : clearInterval(link.ticking)), 1000)
    : null;
}

/**
 * Where this student stood once the step on screen is revealed, as one line ("" before, or for another step):
 * the answer, their own acknowledged prediction and its distance, and the class's share near the answer.
 * @param {{result: object|null, acknowledged: object|null}} link
 * @param {object} strings class_result, class_result_no_prediction, class_result_class(_one), class_result_nobody
 */
export function studentResult(link, state, strings) {
  const r = link.result;
  if (!r || r.step !== state.step) return "";
  const answer = formatFixed(r.answer, 2);
  const klass = r.n && r.share_within !== null
    ? fill(r.n === 1 ? strings.class_result_class_one : strings.class_result_class, {n: r.n, share: `${Math.round(100 * r.share_within)}%`, within: formatG(r.within)})
    : strings.class_result_nobody;
  const ok = link.acknowledged;
  if (!ok || ok.step !== r.step) return fill(strings.class_result_no_prediction, {answer, class: klass});
  return fill(strings.class_result, {answer, yours: formatG(ok.value), gap: formatFixed(Math.abs(ok.value - r.answer), 2),
                                     class: klass});
}

/** Draw the confirmation (for the step on screen) and the latest message. */
export function draw(link, state, models, config) {
  const S = config.strings;
  let message = link.message;
  if (!message && link.sent && !(link.receipt && link.receipt.seq === link.sent.seq)) message = S.class_pending;
  // The demonstration asked for while the vote is open: said until the vote closes.
  if (!message && link.waiting === state.step && votingOpen(state)) message = S.class_demo_waits;
  if (models.vote) show(models.vote, voteStatus(link, state, S));
  if (models.result) show(models.result, studentResult(link, state, S));
  const ok = link.acknowledged;
  show(models.submitted, ok && ok.step === state.step
    ? fill(ok.restored ? S.class_submitted_restored : S.class_submitted, {step: ok.step, value: formatG(ok.value)})
    : "");
  show(models.message, message);
}

function goToStep(state, config, step) {
  goToStepStart(state, config.steps, step);  // as the step buttons do
}

/** Take the stored prediction of the step on screen back into the page, as acknowledged. */
function restore(link, state, prediction) {
  if (!prediction || prediction.step !== state.step) return;
  state.prediction_text = formatG(prediction.value);
  link.acknowledged = {step: prediction.step, value: prediction.value, restored: true};
}

/**
 * This page is in the room no more (it ended, another tab took over, or the connection is lost until it
 * rejoins): no vote holds its demonstration.
 */
function leave(link) {
  link.joined = false;
  link.deadline = null;
  clearInterval(link.ticking);
  link.ticking = null;
}

/** Act on one message of the server (see classroom/channel.py). */
export function receive(link, state, models, config, data) {
  const S = config.strings;
  if (data.type === "joined" || data.type === "room") {
    const newRound = link.round !== null && data.round !== link.round;
    const moved = data.follow && (data.step !== state.step);
    if (data.type === "joined") {
      link.joined = true;
      show(models.joined, fill(S.class_joined, {code: link.code}));
    }
    if (newRound) {
      link.acknowledged = null;
      link.message = fill(S.class_new_round, {round: data.round});
    }
    link.round = data.round;
    const opened = link.closed && !data.closed && data.step === link.roomStep && !newRound;
    link.roomStep = data.step;
    link.closed = Boolean(data.closed);
    link.revealed = Boolean(data.revealed);
    link.result = data.result && typeof data.result === "object" ? data.result : null;
    link.deadline = typeof data.closes_in === "number" && isFinite(data.closes_in) ? Date.now() + 1000 * data.closes_in : null;
    tick(link, state, models, config);
    if (opened) link.message = "";  // reopened: a refusal "closed" no longer holds
    if (moved) goToStep(state, config, data.step);
    else if (!data.follow && data.type === "joined" && data.prediction && data.prediction.step !== state.step) {
      goToStep(state, config, data.prediction.step);  // back at the step the student last predicted
    }
    if (data.type === "joined" || moved || newRound) restore(link, state, data.prediction);
  } else if (data.type === "receipt") {
    link.receipt = data;
    if (data.ok) {
      const sent = link.sent && link.sent.seq === data.seq ? link.sent.confidence : null;
      link.acknowledged = {step: data.step, value: data.value, restored: false, confidence: sent};
      link.message = "";
    } else link.message = S["class_refused_" + data.reason] || S.class_refused_server;
  } else if (data.type === "refused") {
    link.message = S["class_refused_" + data.reason] || S.class_refused_server;
    leave(link);
  }
  draw(link, state, models, config);
}

function lost(link, models, config) {
  if (link.closing) return;
  const S = config.strings;
  const status = classStatus(link, S);
  models.notice.text = escapeHtml(`<div role="alert">${escapeHtml(S.connection_lost)}` +
    `<div class="ae-class-status">${escapeHtml(status)}</div></div>`);
  models.notice.visible = true;
}

/** The wait before the `tries`-th reconnection (ms): quick at first, then every 2 s. */
export function reconnectDelay(tries) {
  return Math.min(2000, 250 * 2 ** tries);
}

/** Send the last prediction again when no receipt said it was stored (it was sent, or typed, while away). */
function resendPending(link) {
  const {sent, receipt, socket} = link;
  if (!sent || (receipt && receipt.seq === sent.seq && receipt.ok)) return;
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({type: "submit", ...sent}));
}

/** Open the class socket of a page in room `code` and join. */
function join(state, models, config, code) {
  const link = {code, socket: null, seq: 0, sent: null, receipt: null, acknowledged: null, message: "",
                round: null, joined: false, closing: false, tries: 0, student: studentId(),
                roomStep: null, closed: false, revealed: false, waiting: null, result: null, deadline: null,
                ticking: null};
  links.set(state, link);
  show(models.room, fill(config.strings.class_room, {code}));
  models.submit.visible = true;
  if (models.confidence) models.confidence.visible = models.confidence_label.visible = true;
  const url = socketUrl(window.location, config.socket_path);
  if (url === null) {
    link.message = config.strings.class_needs_server;
    return draw(link, state, models, config);
  }
  window.addEventListener("pagehide", () => { link.closing = true; });
  connect(link, state, models, config, url);
}

/**
 * One class socket of `link`: join on open; when it is lost (a restart, a network that came back),
 * open another by itself, with a growing wait (reconnectDelay), join again and resend a prediction
 * that no receipt acknowledged. The lost-connection notice shows meanwhile and goes once rejoined.
 */
function connect(link, state, models, config, url) {
  const socket = new WebSocket(url);
  link.socket = socket;
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({type: "join", room: link.code, student: link.student}));
  });
  socket.addEventListener("message", (e) => {
    let data = null;
    try { data = JSON.parse(e.data); } catch (err) { return; }
    if (!data || typeof data !== "object") return;
    receive(link, state, models, config, data);
    if (data.type === "joined") {
      link.tries = 0;
      if (typeof data.student === "string" && data.student !== link.student) {
        link.student = data.student;
        keepStudentId(data.student);
      }
      if (models.notice.visible) models.notice.visible = false;
      resendPending(link);
    }
  });
  socket.addEventListener("close", (e) => {
    if (link.socket !== socket) return;
    // The server's refusal says why in the close reason; anything else is a lost connection.
    if (e.code === REFUSED && e.reason) {
      link.message = config.strings["class_refused_" + e.reason] || config.strings.class_refused_server;
      leave(link);
      // Too many new students from this network at once: this page joins again by itself shortly.
      if (e.reason === "wait") setTimeout(() => { if (!link.closing) connect(link, state, models, config, url); }, waitDelay());
      return draw(link, state, models, config);
    }
    if (link.closing) return;
    lost(link, models, config);
    leave(link);  // while away (or for good: the class is over) the explorable is the student's own
    link.tries += 1;
    setTimeout(() => { if (!link.closing) connect(link, state, models, config, url); }, reconnectDelay(link.tries - 1));
  });
}

/** What the student said of their answer: "sure", "unsure", or null (nothing pressed). */
export function confidenceOf(models) {
  const active = models.confidence ? models.confidence.active : null;
  return active === 0 ? "sure" : active === 1 ? "unsure" : null;
}

/**
 * Send the prediction on screen for the current step (unless the server has it already).
 * Without one, "提交预测" says so; "演示本步" says nothing here (the explorable asks for it).
 * Voting on the room's step closed: nothing is sent ("提交预测" says why; "演示本步" demonstrates).
 * While it is open, "演示本步" and "不预测，直接看" say that the demonstration waits for its close.
 */
export function submit(link, state, models, config, demonstrating = false, skipping = false) {
  const S = config.strings;
  const value = skipping ? null : parsePrediction(state.prediction_text, config.prediction_bounds);
  if (votingOpen(state) && (skipping || (demonstrating && value !== null))) link.waiting = state.step;
  if (value === null) {
    link.message = skipping || demonstrating ? "" : S.class_need_prediction;
    return draw(link, state, models, config);
  }
  if (link.closed && link.roomStep === state.step) {
    link.message = demonstrating ? "" : S.class_refused_closed;
    return draw(link, state, models, config);
  }
  const confidence = confidenceOf(models);
  const ok = link.acknowledged;
  link.message = "";
  // The same answer again: nothing to send (a restored one's confidence is the server's: kept unless a new
  // one is pressed).
  if (ok && ok.step === state.step && ok.value === value && (ok.confidence === confidence ||
      (ok.restored && confidence === null))) {
    return draw(link, state, models, config);
  }
  link.seq += 1;
  link.sent = {seq: link.seq, step: state.step, value, confidence};
  if (link.socket && link.socket.readyState === WebSocket.OPEN) {
    link.socket.send(JSON.stringify({type: "submit", ...link.sent}));
  }
  draw(link, state, models, config);
}

/**
 * The CustomJS entry: join on document_ready, submit on a button, draw on anything else.
 * Bokeh calls it with (args, model) for a change, (args, event) for a model's
 * event and (args, document, event) for the document's own events.
 */
export default function classroom(args, obj, data) {
  try {
    const {state, models, config} = args;
    const event = data && data.event_name ? data : obj;
    if (event && event.event_name === "document_ready") {
      const code = roomOf(window.location.search, config.room_code);
      if (code === false) show(models.message, config.strings.class_refused_room);
      else if (code && !links.has(state)) join(state, models, config, code);
      return;
    }
    const link = links.get(state);
    if (!link) return;  // not in a room
    const origin = event && event.origin ? event.origin : event;
    if (origin === models.submit || origin === models.demonstrate || (models.skip && origin === models.skip)) {
      return submit(link, state, models, config, origin === models.demonstrate, origin === models.skip);
    }
    draw(link, state, models, config);
  } catch (err) {
    console.error("attention explorable (class):", err);
  }
}
