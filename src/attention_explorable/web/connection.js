// Says out loud that the connection to the server is lost (run by Bokeh's
// CustomJS on the document's "connection_lost" event, on pages that are live
// Panel apps: `panel serve apps/*.py` and the instructor's page). The
// explorables keep working in the browser; the notice tells the reader that
// nothing more reaches the server and how to reconnect. The instructor's page
// (a projector: nobody at its keyboard) reconnects by itself: it asks the
// server for its own address until the server answers, then reloads, and the
// address keeps what it showed (its room, its join panel folded or not).
// (A page in a class says so from its class socket: web/classroom.js.)
import {escapeHtml} from "./shared.js";

/** How often a page that reconnects by itself asks whether the server answers again (ms). */
export const RETRY_MS = 1000;

/**
 * Reload the page once the server answers `url` again: a HEAD request (no session is built, nothing
 * cached) every `every` ms until one gets any answer at all, then `location.reload()`.
 * @param {string} url the page's own address
 * @param {number} every the wait between two requests (ms)
 */
export function reloadWhenBack(url, every = RETRY_MS) {
  const ask = () => fetch(url, {method: "HEAD", cache: "no-store", credentials: "same-origin"})
    .then(() => window.location.reload(), () => setTimeout(ask, every));
  setTimeout(ask, every);
}

/**
 * Show the notice; with `reconnect`, reload the page by itself once the server is back.
 * @param {{notice: object, message: string, reconnect: boolean}} args the notice's HTML model, its text,
 *   and whether the page reconnects by itself
 */
export default function connectionLost({notice, message, reconnect}) {
  const role = reconnect ? "status" : "alert";
  notice.text = escapeHtml(`<div role="${role}">${escapeHtml(message)}</div>`);
  notice.visible = true;
  if (reconnect) reloadWhenBack(window.location.href);
}
