// The page as a player of an online game (docs/ONLINE.md "The page as a player").
//
// Two parts:
//  * globalThis.mancalaWs: WebSockets as byte pipes for the VM.  The firmware's own MQTT
//    client (mancala/online/mqtt.py) runs in the VM on wssocket.py's `socket`, which
//    opens, writes and reads these (MQTT over WebSockets: binary frames, subprotocol
//    "mqtt").  Bytes cross as hex text.  Nothing of MQTT is written here.
//  * the Online panel: the broker's address (and an optional user and password, kept
//    in this page's memory only: never stored), create a game or join one with its code,
//    then play on the board; the words come from webonline.py in the VM.
//
// setupOnline(mp, wb) -> { active(), step(ms), tap(pit), words(), status() }: board.js
// turns step() instead of the board's loop while a game is on, and sends clicks to tap().

const socks = new Map();
let nextHandle = 1;
let lastError = "";
const HEX = [];
for (let i = 0; i < 256; i++) HEX.push((i < 16 ? "0" : "") + i.toString(16));

globalThis.mancalaWs = {
  open(url) {
    let ws;
    try {
      ws = new WebSocket(url, ["mqtt"]);
    } catch (err) { // a malformed address, ws:// from an https page
      lastError = String(err && err.message || err);
      return -1;
    }
    ws.binaryType = "arraybuffer";
    const s = { ws, chunks: [], size: 0 };
    ws.onmessage = (e) => {
      const b = new Uint8Array(e.data);
      s.chunks.push(b);
      s.size += b.length;
    };
    ws.onopen = () => { lastError = ""; };
    ws.onerror = () => { lastError = "the WebSocket to " + url + " failed"; };
    const h = nextHandle++;
    socks.set(h, s);
    return h;
  },
  state(h) { // WebSocket.readyState: 0 connecting, 1 open, 2 closing, 3 closed
    const s = socks.get(h);
    return s ? s.ws.readyState : 3;
  },
  pending(h) {
    const s = socks.get(h);
    return s ? s.size : 0;
  },
  send(h, hex) {
    const s = socks.get(h);
    if (!s || s.ws.readyState !== 1) return 0;
    const b = new Uint8Array(hex.length / 2);
    for (let i = 0; i < b.length; i++) b[i] = parseInt(hex.substr(2 * i, 2), 16);
    s.ws.send(b);
    return b.length;
  },
  read(h, max) { // up to max bytes that have arrived, as hex ("" if none)
    const s = socks.get(h);
    if (!s || !s.size) return "";
    let out = "";
    let n = 0;
    while (s.chunks.length && n < max) {
      const c = s.chunks[0];
      const take = Math.min(c.length, max - n);
      for (let i = 0; i < take; i++) out += HEX[c[i]];
      n += take;
      if (take === c.length) s.chunks.shift();
      else s.chunks[0] = c.subarray(take);
    }
    s.size -= n;
    return out;
  },
  close(h) {
    const s = socks.get(h);
    if (!s) return;
    socks.delete(h);
    try { s.ws.close(); } catch (err) { /* closed already */ }
  },
  lastError() { return lastError; },
};

const BROKER_KEY = "mancala-web:online-broker"; // the address only: never a user or password

export function setupOnline(mp, wb, params) {
  const $ = (id) => document.getElementById(id);
  const py = mp.pyimport("webonline").WebOnline(wb);
  let active = false;
  let statusDue = 0;
  let lastLog = -1;

  const url = params.get("broker") || localStorage.getItem(BROKER_KEY) || "";
  $("brokerUrl").value = url;
  if (params.get("code")) $("onlineCodeIn").value = params.get("code");

  function creds() {
    const u = $("brokerUrl").value.trim();
    try { localStorage.setItem(BROKER_KEY, u); } catch (err) { /* private mode */ }
    return [u, $("brokerUser").value, $("brokerPassword").value];
  }
  function begun(why) {
    $("onlineWhy").textContent = why || "";
    if (why) return;
    active = true;
    lastLog = -1;
    $("onlineSetup").hidden = true;
    $("onlinePlay").hidden = false;
    $("online").classList.add("on");
    $("onlineLog").replaceChildren();
    statusDue = 0;
  }
  function showSaved() {
    const saved = JSON.parse(py.saved());
    $("onlineResumeBox").hidden = !saved.phase;
    if (saved.phase) {
      $("onlineSaved").textContent = "an online game is saved on this board (" + saved.phase +
        (saved.side ? ", side " + saved.side : "") + (saved.record ? ": " + saved.record : "") + ")";
    }
  }

  $("onlineCreate").addEventListener("click", () => {
    const [u, user, pw] = creds();
    begun(py.create(u, user, pw, $("onlineVariant").value, $("onlineFirst").value));
  });
  $("onlineJoin").addEventListener("click", () => {
    const [u, user, pw] = creds();
    begun(py.join(u, user, pw, $("onlineCodeIn").value));
  });
  $("onlineResume").addEventListener("click", () => {
    const [u, user, pw] = creds();
    begun(py.resume(u, user, pw));
  });
  $("onlineForget").addEventListener("click", () => {
    py.forget();
    showSaved();
  });
  $("onlineLeave").addEventListener("click", () => {
    py.leave();
    active = false;
    $("onlineSetup").hidden = false;
    $("onlinePlay").hidden = true;
    $("online").classList.remove("on");
    showSaved();
  });
  showSaved();

  function showStatus() {
    const st = JSON.parse(py.status());
    window.mancala.onlineStatus = st;
    if (!st.active) return;
    $("onlineCode").textContent = st.code || "–";
    $("onlineCode").dataset.code = st.code || "";
    $("onlinePhase").textContent = st.phase + (st.seat ? " · this page plays " + st.seat : "") +
      (st.failed ? ": " + st.failed : "");
    $("onlinePhase").dataset.phase = st.phase;
    $("onlineTurn").textContent = st.over ? "game over: " + st.result : st.turn;
    $("onlineTurn").dataset.mine = st.my_turn ? "1" : "0";
    $("onlinePeer").textContent = st.peer_words;
    $("onlinePeer").dataset.peer = st.peer === null ? "unknown" : st.peer ? "here" : "away";
    const js = globalThis.mancalaWs.lastError();
    $("onlineConn").textContent = st.connection + (!st.connected && js ? " · " + js : "");
    $("onlineConn").dataset.connected = st.connected ? "1" : "0";
    $("onlineRecord").textContent = st.record || "–";
    if (st.noted !== lastLog) { // the log is short: redrawn whole
      lastLog = st.noted;
      $("onlineLog").replaceChildren(...st.log.slice().reverse().map(([kind, text]) => {
        const li = document.createElement("li");
        li.textContent = text;
        li.dataset.kind = kind;
        if (kind === "refused" || kind === "ignored" || kind === "failed" || kind === "drop") li.className = "bad";
        return li;
      }));
    }
  }

  return {
    active: () => active,
    step(ms) {
      const f = py.step(ms);
      const now = performance.now();
      if (now >= statusDue) {
        statusDue = now + 200;
        showStatus();
      }
      return f;
    },
    tap(pit) {
      const why = py.tap(pit);
      statusDue = 0;
      return why;
    },
    words: () => JSON.parse(py.words()),
    py,
  };
}
