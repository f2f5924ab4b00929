// Says out loud that the connection to the server is lost (run by Bokeh's
// CustomJS on the document's "connection_lost" event, on pages that are live
// Panel apps: `panel serve apps/*.py` and the instructor's page). The
// explorables keep working in the browser; the notice tells the reader that
// nothing more reaches the server and how to reconnect. (A page in a class
// says so from its class socket: web/classroom.js.)
import {escapeHtml} from "./shared.js";

/**
 * Show the notice.
 * @param {{notice: object, message: string}} args the notice's HTML model and its text
 */
export default function connectionLost({notice, message}) {
  notice.text = escapeHtml(`<div role="alert">${escapeHtml(message)}</div>`);
  notice.visible = true;
}
