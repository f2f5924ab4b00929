// Installed before a page's scripts by benchmarks/proxy_check.py: notes which
// PATCH-DOC messages the page sends over Bokeh's websocket change a given
// property (window.__aeWatchAttr, "score_diff" unless set), and which of them
// the server has answered with OK (its reqid is the request's msgid).
// window.__aeWs = {sent: [msgid of each such PATCH-DOC], acked: [msgid, ...]}.
(() => {
  const watch = {sent: [], acked: []};
  window.__aeWs = watch;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      let header = null;  // a message is three frames: header, metadata, content
      let frame = 0;
      const send = this.send.bind(this);
      this.send = (data) => {
        if (typeof data === "string") {
          if (frame === 0) {
            try { header = JSON.parse(data); } catch (err) { header = null; }
          } else if (frame === 2 && header && header.msgtype === "PATCH-DOC"
                     && data.includes(`"${window.__aeWatchAttr || "score_diff"}"`)) {
            watch.sent.push(header.msgid);
          }
          frame = (frame + 1) % 3;
        }
        return send(data);
      };
      this.addEventListener("message", (ev) => {
        if (typeof ev.data !== "string" || !ev.data.includes('"OK"')) return;
        try {
          const h = JSON.parse(ev.data);
          if (h.msgtype === "OK" && watch.sent.includes(h.reqid)) watch.acked.push(h.reqid);
        } catch (err) { /* not a header frame */ }
      });
    }
  };
})();
