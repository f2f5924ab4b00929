// Says out loud that the connection to the server is lost (run by Bokeh's
// CustomJS on the document's "connection_lost" event). The explorables keep
// working in the browser; the notice tells the student that nothing more
// reaches the server and how to reconnect.
import {escapeHtml} from "./shared.js";

/**
 * Show the notice.
 * @param {{notice: object, message: string}} args the notice's HTML model and its text
 */
export default function connectionLost({notice, message}) {
  notice.text = escapeHtml(`<div role="alert">${escapeHtml(message)}</div>`);
  notice.visible = true;
}
