// A student's page in a room (twin of attention_explorable/classroom/channel.py, the server's end), a
// host's part beside the steps module (web/steps.js): with ?room=CODE in the address, its class panel shows
// in the module's `.ae-class` box, the page opens its one class socket (/class/socket), joins the room with
// the anonymous id the server gave it (kept in localStorage; the first join gets one), submits the
// prediction when the student presses "演示本步" or "提交预测" (the module's `send({event})`), and draws the
// server's receipt as the confirmation "已提交". From the server come only this student's receipts, the
// room's step (when the students follow the instructor), whether voting on it is closed or its answer
// revealed, and a new round. While the vote is open, the module's demonstration (the answer) waits: the
// model's `held`. Every question the instructor poses is asked on a card of its own at the foot of the
// screen, wherever the student is; a step's card makes way for the steps explorable while that is on
// screen. A lost connection is taken up again by the page itself.
import {countText, fill, formatFixed, formatG, formatNumber, setState, stepStart} from "./shared.js";
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
 * @param {object} strings class_lost_received, class_lost_not_received (and their _question forms), class_lost_none
 * @param {object} questions the class config's exercises by number (an answer to one is named by its title)
 */
export function classStatus(link, strings, questions = {}) {
  const {sent, receipt} = link;
  const say = (key, answer) => {
    const question = questions[String(answer.step)];
    if (!question || question.step) return fill(strings[key], {step: answer.step, value: formatG(answer.value)});
    const value = question.kind === "choice" ? (question.options[answer.value] ?? "?") : formatG(answer.value);
    return fill(strings[key + "_question"], {title: question.title, value});
  };
  if (sent && !(receipt && receipt.seq === sent.seq && receipt.ok)) return say("class_lost_not_received", sent);
  const ok = link.acknowledged;
  if (ok) return say("class_lost_received", ok);
  return strings.class_lost_none;
}

/** Show plain `message` in a line of the class panel (hidden while ""). */
function show(line, message) {
  if (line.textContent !== message) line.textContent = message;
  line.hidden = message === "";
}

/** The seconds left of the room's countdown, as one line. */
function countdown(link, strings, now = Date.now()) {
  return fill(strings.class_voting_closes_in, {seconds: Math.max(0, Math.ceil((link.deadline - now) / 1000))});
}

/** The room's vote on the step on screen, as one line: closed, revealed, or "" while it is open (or another step). */
export function voteStatus(link, state, strings, now = Date.now()) {
  if (!link.joined || link.roomStep !== state.step) return "";
  if (link.revealed) return strings.class_revealed;
  if (link.closed) return strings.class_voting_closed;
  if (link.deadline) return countdown(link, strings, now);
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
 * @param {object} strings class_result, class_result_no_prediction, class_result_class (and its plural forms), class_result_nobody
 */
export function studentResult(link, state, strings, lang) {
  const r = link.result;
  if (!r || r.step !== state.step) return "";
  const answer = formatNumber(r.answer, 2, false);
  // r.percent: rounded by the server (classroom/stats.py percent), as the projector rounds it.
  const klass = r.n && r.share_within !== null
    ? fill(countText(strings, "class_result_class", r.n, lang), {n: r.n, share: `${r.percent}%`, within: formatG(r.within)})
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
  const open = votingOpen(link, state);
  if (!message && link.waiting === state.step && open) message = S.class_demo_waits;
  if (state.model.get("held") !== open) setState(state.model, {held: open});
  if (models.vote) show(models.vote, voteStatus(link, state, S));
  if (models.result) show(models.result, studentResult(link, state, S, config.lang));
  const ok = link.acknowledged;
  show(models.submitted, ok && ok.step === state.step
    ? fill(ok.restored ? S.class_submitted_restored : S.class_submitted, {step: ok.step, value: formatG(ok.value)})
    : "");
  show(models.message, message);
  drawQuestion(link, config);
}

/**
 * Whether the room's vote on the step on screen is still open: the module's demonstration (which shows the
 * answer) waits for the instructor's close or reveal.
 */
export function votingOpen(link, state) {
  return Boolean(link.joined && !link.closed && link.roomStep === state.step);
}

/** Whether the room's question `n` is one of the steps (asked on the explorable), not a card's question. */
export function isStep(config, n) {
  return Number.isInteger(n) && n >= 1 && n <= config.steps.length;
}

/**
 * Where the class stood on the card's revealed question, as one line ("" before its reveal): the answer
 * (an option's letter for a choice), this student's own acknowledged answer, and the share right.
 */
export function questionResult(link, question, strings, lang) {
  const r = link.result;
  if (!r || r.step !== link.roomStep || !question) return "";
  const show = (v) => (question.kind === "choice" ? (question.options[v] ?? "?") : formatG(v));
  const klass = r.n && r.share_within !== null
    ? fill(countText(strings, "class_question_class", r.n, lang),
           {n: r.n, share: `${r.percent}%`})
    : strings.class_result_nobody;
  const ok = link.acknowledged;
  if (!ok || ok.step !== r.step) return fill(strings.class_question_result_none, {answer: show(r.answer), class: klass});
  return fill(strings.class_question_result, {answer: show(r.answer), yours: show(ok.value), class: klass});
}

const CARD_CSS = `
.ae-class-question { position: fixed; left: 0; right: 0; bottom: 0; z-index: 900; box-sizing: border-box;
  max-height: 60vh; overflow: auto; margin: 0 auto; max-width: 760px; padding: 10px 14px 12px;
  background: var(--ae-surface, #fff); color: var(--ae-text, #1b1b1b); font-size: 16px; line-height: 1.5;
  border: 2px solid var(--ae-accent, #2f6fad); border-bottom: 0; border-radius: 10px 10px 0 0;
  box-shadow: 0 -4px 18px rgba(0, 0, 0, 0.25); }
.ae-class-question[hidden] { display: none; }
.ae-cq-head { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.ae-cq-head strong { font-size: 17px; }
.ae-cq-label { color: var(--ae-muted, #444); flex: 1 1 12em; }
.ae-class-question button { font: inherit; min-height: 44px; padding: 4px 14px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--ae-border, #8c8c8c); background: var(--ae-surface, #fff); color: var(--ae-text, #1b1b1b); }
.ae-class-question button:disabled, .ae-class-question input:disabled + * { opacity: 0.55; cursor: not-allowed; }
.ae-class-question .ae-cq-submit { background: var(--ae-accent, #2f6fad); color: #fff;
  border-color: var(--ae-accent-border, #24578a); }
.ae-class-question input[type=text] { font: inherit; min-height: 40px; padding: 4px 8px; width: 10em;
  background: var(--ae-surface, #fff); color: var(--ae-text, #1b1b1b); border: 1px solid var(--ae-border, #8c8c8c); }
.ae-cq-answer { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin-top: 6px; }
.ae-cq-confidence { display: flex; gap: 6px; }
.ae-class-question .ae-cq-confidence button[aria-pressed=true] { background: var(--ae-accent, #2f6fad); color: #fff;
  border-color: var(--ae-accent-border, #24578a); }
.ae-cq-choices { display: flex; gap: 6px; flex-wrap: wrap; border: 0; margin: 0; padding: 0; }
.ae-cq-choices label { display: inline-flex; align-items: center; gap: 4px; min-height: 44px; min-width: 44px;
  padding: 0 10px; border: 1px solid var(--ae-border, #8c8c8c); border-radius: 6px; cursor: pointer; }
.ae-cq-choices input { width: 20px; height: 20px; margin: 0; }
.ae-cq-status { margin: 6px 0 0; font-weight: 600; position: sticky; bottom: -12px; padding: 4px 0 12px;
  background: var(--ae-surface, #fff); }
.ae-cq-status:empty { display: none; }
.ae-cq-status.ae-cq-ok { color: var(--ae-right, #1b7f3b); }
.ae-cq-status.ae-cq-problem { color: var(--ae-error, #b00020); }
.ae-cq-text .ae-options { padding-left: 1.2em; margin: 4px 0; }
.ae-cq-text p { margin: 4px 0; }
`;

/** An element `tag` with `attrs` (attributes) and plain `text`: nothing here is parsed as HTML. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children.filter((c) => c !== "" && c !== null && c !== undefined));
  return node;
}

/** The card of the room's question `number` on this page (made once, at the foot of the screen). */
function questionCard(link, config) {
  if (link.card) return link.card;
  const S = config.strings;
  if (!document.getElementById("ae-class-question-css")) {
    document.head.append(el("style", {id: "ae-class-question-css"}, CARD_CSS));
  }
  const root = el("section", {class: "ae-class-question", "aria-labelledby": "ae-cq-title", hidden: ""});
  const head = el("div", {class: "ae-cq-head"});
  const title = el("strong", {id: "ae-cq-title"}, S.class_question_title);
  const label = el("span", {class: "ae-cq-label"});
  const toggle = el("button", {type: "button", class: "ae-cq-toggle", "aria-expanded": "true"}, S.class_question_hide);
  head.append(title, label, toggle);
  const body = el("div", {class: "ae-cq-body"});
  const text = el("div", {class: "ae-cq-text"});
  const answer = el("div", {class: "ae-cq-answer"});
  const status = el("p", {class: "ae-cq-status", role: "status"});
  body.append(text, answer, status);
  root.append(head, body);
  toggle.addEventListener("click", () => {
    const open = body.hidden;
    body.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? S.class_question_hide : S.class_question_show;
  });
  document.body.append(root);
  link.card = {root, label, text, answer, status, number: null, input: null};
  return link.card;
}

/** Put question `number` on the card (a new question: its text and its box or options, empty or restored). */
function askQuestion(link, config, number, prediction, newRound) {
  const card = questionCard(link, config);
  const question = config.questions[String(number)];
  if (card.number === number && !newRound) return;
  card.number = number;
  card.answer.replaceChildren();
  card.input = null;
  if (!question) {
    card.label.textContent = "";
    card.text.replaceChildren(el("p", {}, config.strings.class_question_unknown));
    return;
  }
  const S = config.strings;
  card.label.textContent = question.title;
  if (question.typed) {  // the instructor's own words, from a message: written as text, never parsed
    const items = question.choices.map((words, i) => el("li", {}, el("b", {}, `${question.options[i]}.`), " ", words));
    card.text.replaceChildren(el("p", {}, question.text), ...(items.length ? [el("ul", {class: "ae-options"}, ...items)] : []));
  } else {
    // The package's own question text (formulas as MathML), from the page's config: never from a message.
    card.text.innerHTML = question.html;
  }
  const stored = prediction && prediction.step === number ? prediction.value : null;
  if (question.kind === "choice") {
    const group = el("div", {class: "ae-cq-choices", role: "radiogroup", "aria-labelledby": "ae-cq-title"});
    question.options.forEach((letter, i) => {
      const box = el("input", {type: "radio", name: "ae-cq-choice", value: String(i)});
      if (stored === i) box.checked = true;
      const row = el("label", {});
      row.append(box, document.createTextNode(letter));
      group.append(row);
    });
    card.answer.append(group);
    card.input = group;
  } else {
    const box = el("input", {type: "text", inputmode: "decimal", class: "ae-cq-input", autocomplete: "off",
                             placeholder: S.class_question_placeholder, "aria-labelledby": "ae-cq-title"});
    if (stored !== null) box.value = formatG(stored);
    box.addEventListener("keydown", (e) => { if (e.key === "Enter") submitAnswer(link, config); });
    card.answer.append(box);
    card.input = box;
  }
  // How sure the student is, said with the answer (optional), as beside the explorable's own box.
  card.confidence = confidenceButtons(el("div", {class: "ae-cq-confidence"}), S);
  const send = el("button", {type: "button", class: "ae-cq-submit"}, S.class_question_submit);
  send.addEventListener("click", () => submitAnswer(link, config));
  card.answer.append(card.confidence, send);
  if (question.step) {  // a step: the explorable is the full question; a button takes the student there
    const go = el("button", {type: "button", class: "ae-cq-goto"}, S.class_question_goto);
    go.addEventListener("click", () => goToExplorable(link));
    card.answer.append(go);
  }
  if (stored !== null) link.acknowledged = {step: number, value: stored, restored: true};
  link.cardMessage = "";
  if (!newRound) link.message = "";  // a new question: the last one's message is done; a new round's is said
}

/** The steps explorable's prediction box on this page (its host element), or null. */
function explorableBox() {
  return typeof document === "undefined" ? null : document.querySelector(".ae-steps .ae-prediction");
}

/**
 * Watch whether the steps explorable's prediction box is on screen: while it is, a step's card makes way
 * for the explorable itself (on /steps, most of the time); while it is not (the textbook, 23 screens
 * above it), the card asks the step where the student is.
 */
function watchExplorable(link, config) {
  const box = explorableBox();
  link.explorableInView = false;
  if (!box || typeof IntersectionObserver === "undefined") return;
  new IntersectionObserver((entries) => {
    const seen = entries.some((e) => e.isIntersecting);
    if (seen === link.explorableInView) return;
    link.explorableInView = seen;
    drawQuestion(link, config);
  }).observe(box);
}

/** Scroll the steps explorable into view and put the cursor in its prediction box. */
function goToExplorable(link) {
  const box = explorableBox();
  if (!box) return;
  box.scrollIntoView({block: "center"});
  const input = box.querySelector("input");
  if (input) input.focus({preventScroll: true});
}

/** The answer on the card, as the number sent: the option's index, or the value typed (null: none). */
function cardValue(card, question) {
  if (question.kind === "choice") {
    const chosen = card.input.querySelector("input:checked");
    return chosen ? Number(chosen.value) : null;
  }
  return parsePrediction(card.input.value, question.bounds);
}

/** Send the card's answer (said on the card when there is none, or the vote is closed). */
function submitAnswer(link, config) {
  const S = config.strings, card = link.card;
  const question = card && config.questions[String(card.number)];
  if (!question || card.number !== link.roomStep) return;
  const value = cardValue(card, question);
  if (value === null) {
    link.cardMessage = question.kind === "choice" ? S.class_question_choose : S.class_question_malformed;
    return drawQuestion(link, config);
  }
  if (link.closed) {
    link.cardMessage = S.class_refused_closed;
    return drawQuestion(link, config);
  }
  link.cardMessage = "";
  // A step answered on its card is the explorable's prediction too (the same box, should the student go there).
  if (question.step && link.state && link.state.step === card.number) link.state.prediction_text = formatG(value);
  const pressed = card.confidence && card.confidence.querySelector("[aria-pressed=true]");
  const confidence = pressed ? pressed.dataset.value : null;
  const ok = link.acknowledged;
  if (ok && ok.step === card.number && ok.value === value && (ok.confidence ?? null) === confidence) {
    return drawQuestion(link, config);
  }
  link.seq += 1;
  link.sent = {seq: link.seq, step: card.number, value, confidence};
  if (link.socket && link.socket.readyState === WebSocket.OPEN) {
    link.socket.send(JSON.stringify({type: "submit", ...link.sent}));
  }
  drawQuestion(link, config);
}

/** The card as the room stands: shown while the room's question is one of its own, with its status line. */
function drawQuestion(link, config) {
  const card = link.card;
  if (!card) return;
  // Kept while the connection is lost (an answer typed meanwhile is sent once the page has rejoined).
  // A step's card makes way for the explorable while that is on screen.
  const onExplorable = isStep(config, link.roomStep) && link.explorableInView;
  const shown = (link.joined || link.away) && !onExplorable && card.number === link.roomStep;
  card.root.hidden = !shown;
  if (!shown) return;
  const S = config.strings;
  const question = config.questions[String(card.number)];
  if (!question) {  // the card says to reload: nothing of an earlier question stays on it
    card.status.textContent = "";
    return;
  }
  const closed = link.closed;
  for (const input of card.answer.querySelectorAll("input, button")) input.disabled = closed;
  const ok = link.acknowledged;
  const pending = link.sent && link.sent.step === card.number && !(link.receipt && link.receipt.seq === link.sent.seq);
  const refused = link.receipt && !link.receipt.ok && link.sent && link.receipt.seq === link.sent.seq && link.message;
  const result = questionResult(link, question, S, config.lang);
  let line = "", kind = "";
  if (link.cardMessage) [line, kind] = [link.cardMessage, "ae-cq-problem"];
  else if (refused) [line, kind] = [link.message, "ae-cq-problem"];
  else if (pending) line = S.class_pending;
  else if (result) line = result;
  else if (ok && ok.step === card.number) {
    const value = question.kind === "choice" ? (question.options[ok.value] ?? "?") : formatG(ok.value);
    [line, kind] = [fill(S.class_question_submitted, {value}), "ae-cq-ok"];
  } else if (closed) line = S.class_voting_closed;
  if (link.deadline && !closed) line = [line, countdown(link, S)].filter(Boolean).join(" ");
  card.status.textContent = line;
  card.status.className = "ae-cq-status" + (kind ? " " + kind : "");
}

function goToStep(state, config, step) {
  setState(state.model, stepStart(config, step));  // as the step buttons do
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
  link.joined = link.away = false;
  link.deadline = null;
  clearInterval(link.ticking);
  link.ticking = null;
}

/**
 * The question the instructor typed, as the server sent it with the room (classroom/questions.py
 * typed_for_page), checked and put among the config's questions under its number; null for anything else.
 * Its words stay plain text (askQuestion writes them as text).
 */
export function typedQuestion(config, sent) {
  if (!sent || typeof sent !== "object" || !Number.isInteger(sent.number) || !Number.isInteger(sent.ordinal)) return null;
  const texts = (list) => Array.isArray(list) && list.length <= 8 && list.every((t) => typeof t === "string");
  const bounds = Array.isArray(sent.bounds) && sent.bounds.length === 2 && sent.bounds.every(Number.isFinite);
  if (typeof sent.text !== "string" || !texts(sent.choices) || !texts(sent.options) || !bounds ||
      sent.options.length !== sent.choices.length) return null;
  if (!(sent.kind === "number" ? sent.choices.length === 0 : sent.kind === "choice" && sent.choices.length >= 2)) {
    return null;
  }
  const question = {kind: sent.kind, typed: true, step: false, text: sent.text, choices: sent.choices,
                    options: sent.options, bounds: sent.bounds,
                    title: fill(config.strings.question_custom_title, {ordinal: sent.ordinal})};
  config.questions[String(sent.number)] = question;
  return question;
}

/** Act on one message of the server (see classroom/channel.py). */
export function receive(link, state, models, config, data) {
  const S = config.strings;
  if (data.type === "joined" || data.type === "room") {
    if (data.question && data.question.number === data.step) typedQuestion(config, data.question);
    const newRound = link.round !== null && data.round !== link.round;
    const moved = data.follow && (data.step !== state.step);
    if (data.type === "joined") {
      link.joined = true;
      link.away = false;
      show(models.joined, fill(S.class_joined, {code: link.code}));
    }
    if (newRound) {
      clearConfidence(models);
      link.acknowledged = null;
      link.message = S.class_new_round;  // no number: the projector numbers rounds per question
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
    if (moved && isStep(config, data.step)) goToStep(state, config, data.step);
    else if (!data.follow && data.type === "joined" && data.prediction && data.prediction.step !== state.step &&
             isStep(config, data.prediction.step)) {
      goToStep(state, config, data.prediction.step);  // back at the step the student last predicted
    }
    if (data.type === "joined" || moved || newRound) restore(link, state, data.prediction);
    askQuestion(link, config, data.step, data.prediction, newRound);
  } else if (data.type === "receipt") {
    link.receipt = data;
    if (!data.ok && data.reason === "slow" && link.sent && data.seq === link.sent.seq) {
      // The server could not store it in time (it may yet): still "Submitting…", and sent again shortly.
      link.receipt = null;
      retrySoon(link);
      return draw(link, state, models, config);
    }
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

/**
 * The connection is lost: say, calmly, that the page is reconnecting by itself (nothing to reload) and
 * whether the last answer is stored or will be sent once it is back.
 */
function lost(link, models, config) {
  if (link.closing) return;
  const S = config.strings;
  const status = classStatus(link, S, config.questions);
  models.notice.replaceChildren(el("div", {role: "status"}, S.class_reconnecting),
                                el("div", {class: "ae-class-status"}, status));
  models.notice.hidden = false;
}

/** The wait before the `tries`-th reconnection (ms): quick at first, then every 2 s. */
export function reconnectDelay(tries) {
  return Math.min(2000, 250 * 2 ** tries);
}

/** Send the unacknowledged answer again in a few seconds (spread, so a hall does not retry at one instant). */
function retrySoon(link, random = Math.random) {
  clearTimeout(link.retry);
  link.retry = setTimeout(() => resendPending(link), 2000 + Math.floor(random() * 3000));
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
  link.state = state;
  state.link = link;
  watchExplorable(link, config);
  show(models.room, fill(config.strings.class_room, {code}));
  models.panel.hidden = models.submit.hidden = models.confidence.hidden = models.confidence_label.hidden = false;
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
      models.notice.hidden = true;
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
    link.away = true;
    drawQuestion(link, config);
    link.tries += 1;
    setTimeout(() => { if (!link.closing) connect(link, state, models, config, url); }, reconnectDelay(link.tries - 1));
  });
}

/** What the student said of their answer: "sure", "unsure", or null (nothing pressed). */
export function confidenceOf(models) {
  const pressed = models.confidence.querySelector("[aria-pressed=true]");
  return pressed ? pressed.dataset.value : null;
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
  if (votingOpen(link, state) && (skipping || (demonstrating && value !== null))) link.waiting = state.step;
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

/** An element `tag` of class `cls`, hidden, with `children`. */
const line = (cls, tag = "div", ...children) => el(tag, {class: cls, hidden: ""}, ...children);

/**
 * The class panel in `slot` (the steps module's `.ae-class` box): the lost connection's notice, the room's
 * line, "joined", how sure the student is (two toggle buttons, optional), "提交预测", the confirmation, the
 * vote's line, the result and the last message; every line plain text.
 */
function classPanel(slot, S) {
  const models = {
    panel: slot,
    notice: line("ae-connection-lost"),
    room: line("ae-room"),
    joined: line("ae-room-joined"),
    confidence_label: line("ae-confidence-label", "div", S.class_confidence),
    confidence: line("ae-confidence ae-n-group", "div"),
    submit: line("ae-submit-prediction ae-n-btn-host", "div",
                 el("button", {type: "button", class: "ae-n-primary"}, S.class_submit)),
    submitted: line("ae-submitted"),
    vote: line("ae-class-vote"),
    result: line("ae-student-result"),
    message: line("ae-class-message ae-error"),
  };
  confidenceButtons(models.confidence, S);
  slot.replaceChildren(...Object.values(models).filter((m) => m !== slot));
  return models;
}

/** `group` made the two toggle buttons of how sure a student is (one pressed at most; none: not said). */
function confidenceButtons(group, S) {
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", S.class_confidence);
  for (const [value, label] of [["sure", S.class_sure], ["unsure", S.class_unsure]]) {
    const b = el("button", {type: "button", "aria-pressed": "false", "data-value": value}, label);
    b.addEventListener("click", () => {
      const on = b.getAttribute("aria-pressed") !== "true";
      for (const other of group.children) other.setAttribute("aria-pressed", "false");
      b.setAttribute("aria-pressed", String(on));
    });
    group.append(b);
  }
  return group;
}

/** The steps module's keys the class reads and sets, as properties (`model`: the module's model). */
function stateOf(model) {
  return {
    model,
    get step() { return model.get("step"); },
    get prediction_text() { return model.get("prediction_text"); },
    set prediction_text(text) { setState(model, {prediction_text: text}); },
  };
}

/**
 * Join the room the page's address names (`?room=CODE`) with the steps module in `el` (its model `model`):
 * its `.ae-class` box becomes the class panel; `config` is the class's (views: explorables/class_panel.py
 * class_config). Nothing happens on a page with no room in its address, or with no `.ae-class` box.
 */
export function joinClass({model, el: root, config}) {
  const slot = root.querySelector(".ae-class");
  if (!slot || slot.dataset.aeJoined) return;
  const code = roomOf(window.location.search, config.room_code);
  if (code === null) return;
  slot.dataset.aeJoined = "1";
  const models = classPanel(slot, config.strings);
  const state = stateOf(model);
  if (code === false) {
    slot.hidden = false;
    return show(models.message, config.strings.class_refused_room);
  }
  join(state, models, config, code);
  const link = state.link;
  models.submit.querySelector("button").addEventListener("click", () => submit(link, state, models, config));
  model.on("msg:sent", (content) => {
    const event = content && content.event;
    if (event === "demonstrate" || event === "skip") submit(link, state, models, config, event === "demonstrate", event === "skip");
  });
  // How sure the student was is said of one answer: another step starts unsaid (a new round too, in receive).
  model.on("change:step", () => {
    clearConfidence(models);
    draw(link, state, models, config);
  });
}

/** No confidence said (neither button pressed). */
function clearConfidence(models) {
  if (!models.confidence) return;
  for (const b of models.confidence.children) b.setAttribute("aria-pressed", "false");
}

export default {joinClass};
