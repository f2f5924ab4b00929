// Says out loud that the connection to the server is lost (run by Bokeh's
// CustomJS on the document's "connection_lost" event). The explorables keep
// working in the browser; the notice tells the student that nothing more
// reaches the server and how to reconnect, and, on a page in a room,
// whether the last prediction was received.
import {escapeHtml} from "./shared.js";
import {classStatus} from "./classroom.js";

/**
 * Show the notice.
 * @param {{notice: object, message: string, link: (object|undefined), strings: (object|undefined)}} args
 *   the notice's HTML model and its text; on a page in a room, the class link and its strings
 */
export default function connectionLost({notice, message, link, strings}) {
  const status = link ? classStatus(link, strings) : "";
  const extra = status ? `<div class="ae-class-status">${escapeHtml(status)}</div>` : "";
  notice.text = escapeHtml(`<div role="alert">${escapeHtml(message)}${extra}</div>`);
  notice.visible = true;
}
