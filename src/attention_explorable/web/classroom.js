// A student's page in a room (twin of attention_explorable/classroom/student.py):
// the anonymous id kept in localStorage, the prediction submitted when the
// student presses "演示本步" or "提交预测", and the server's receipt drawn as
// the confirmation "已提交". Run by Bokeh's CustomJS on the page's
// document_ready, on the link's receipt, on the explorable's step and on the
// two buttons. Nothing here sees another student's prediction: the server
// sends only this student's receipt.
import {escapeHtml, fill, formatG} from "./shared.js";
import {parsePrediction} from "./prediction.js";

const ID_KEY = "attention-explorable-student";
// The last receipt the server acknowledged, per link (the page's memory).
const acknowledged = new WeakMap();

/** A fresh anonymous id: 128 random bits as 32 hex digits (no name, nothing personal). */
export function newStudentId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** This browser's anonymous id, kept across reloads in localStorage (a new one per page where that fails). */
export function studentId(storage = globalThis.localStorage) {
  try {
    let id = storage.getItem(ID_KEY);
    if (!/^[0-9a-f]{32}$/.test(id || "")) {
      id = newStudentId();
      storage.setItem(ID_KEY, id);
    }
    return id;
  } catch (err) {
    return newStudentId();
  }
}

function parse(json) {
  if (!json) return null;
  try { return JSON.parse(json); } catch (err) { return null; }
}

function show(model, html) {
  const text = escapeHtml(html);
  if (model.text !== text) model.text = text;
  if (model.visible !== (html !== "")) model.visible = html !== "";
}

/**
 * Whether the last prediction reached the server, as one sentence for the
 * connection-lost notice ("" outside a room).
 * @param {object} link the ClassroomLink model
 * @param {object} strings class_lost_received, class_lost_not_received, class_lost_none
 */
export function classStatus(link, strings) {
  // From the link's own properties only: this runs in another bundle (connection.mjs).
  if (!link || !link.room) return "";
  const sent = parse(link.submission), receipt = parse(link.receipt);
  if (sent && !(receipt && receipt.seq === sent.seq && receipt.ok)) {
    return fill(strings.class_lost_not_received, {step: sent.step, value: formatG(sent.value)});
  }
  if (receipt && receipt.ok) return fill(strings.class_lost_received, {step: receipt.step, value: formatG(receipt.value)});
  return strings.class_lost_none;
}

/** Draw the confirmation (for the step on screen) and the latest message. */
export function draw(link, state, models, config) {
  const S = config.strings;
  const receipt = parse(link.receipt);
  const sent = parse(link.submission);
  let message = "";
  if (receipt && receipt.new_round !== undefined) {
    acknowledged.delete(link);
    message = fill(S.class_new_round, {round: receipt.new_round});
  } else if (receipt && receipt.ok) {
    acknowledged.set(link, receipt);
  } else if (receipt && !receipt.ok) {
    message = S["class_refused_" + receipt.reason] || S.class_refused_server;
  }
  if (sent && !(receipt && receipt.seq === sent.seq) && !message) message = S.class_pending;
  const ok = acknowledged.get(link);
  show(models.submitted, ok && ok.step === state.step
    ? fill(ok.restored ? S.class_submitted_restored : S.class_submitted, {step: ok.step, value: formatG(ok.value)})
    : "");
  show(models.message, message);
}

/** Send the prediction on screen for the current step (unless the server has it already). */
export function submit(link, state, models, config) {
  const value = parsePrediction(state.prediction_text, config.prediction_bounds);
  if (value === null) {
    show(models.message, config.strings.class_need_prediction);
    return;
  }
  const ok = acknowledged.get(link);
  if (ok && ok.step === state.step && ok.value === value) return draw(link, state, models, config);
  const last = parse(link.submission);
  const seq = (last && Number.isInteger(last.seq) ? last.seq : 0) + 1;
  link.submission = JSON.stringify({seq, step: state.step, value});
  draw(link, state, models, config);
}

/**
 * The CustomJS entry: join on document_ready, submit on a button, draw on anything else.
 * Bokeh calls it with (args, model) for a change, (args, event) for a model's
 * event and (args, document, event) for the document's own events.
 */
export default function classroom(args, obj, data) {
  try {
    const {link, state, models, config} = args;
    const event = data && data.event_name ? data : obj;
    const origin = event && event.origin ? event.origin : event;
    if (event && event.event_name === "document_ready") {
      if (!link.student_id) link.student_id = studentId();
      return;
    }
    if (origin === models.submit || origin === models.demonstrate) return submit(link, state, models, config);
    draw(link, state, models, config);
  } catch (err) {
    console.error("attention explorable (class):", err);
  }
}
