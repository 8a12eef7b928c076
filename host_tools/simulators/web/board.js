// The board in a browser: the firmware runs in the official MicroPython WebAssembly
// VM (vm/micropython.mjs, served locally), against the fake machine/neopixel; this
// file only turns its loop, feeds it fingers and draws its LED buffer.
//
// window.mancala = { wb, stats } for the tests and the curious:
//   stats.loadMs     navigation start -> the first frame drawn
//   stats.vmLoadMs   the VM fetched and instantiated (with the Python bundle fetched beside it)
//   stats.bootMs     the firmware compiled, imported and booted in the VM
//   stats.clicks     [ms] pointer/key down -> the animation frame drawing the pressed pit
//   stats.stepMs     time spent in the VM (all loop turns), stats.steps calls
import { loadMicroPython } from "./vm/micropython.mjs?v=@BUNDLE_VERSION@";
import { setupOnline } from "./online.js?v=@BUNDLE_VERSION@";

const SVGNS = "http://www.w3.org/2000/svg";
const PROFILES = ["pico_buttons", "pico_hall", "esp32", "pico_cheap", "pico2_buttons", "pico_w",
  "pico_buttons+battery", "pico_cheap+battery"];
const KEYS_S = "asdfgh";
const KEYS_N = "ytrewq"; // N1..N6 (N1 on the right, facing S6)

const stats = { loadMs: null, vmLoadMs: null, bootMs: null, clicks: [], frames: 0, stepMs: 0,
  steps: 0 };
window.mancala = { stats };

const params = new URLSearchParams(location.search);
let profile = (params.get("profile") || localStorage.getItem("mancala-web:profile") || "pico_buttons").replace(/-/g, "_");
if (!PROFILES.includes(profile)) profile = "pico_buttons";
localStorage.setItem("mancala-web:profile", profile);
const KEY = "mancala-web:v1:" + profile;
if (params.has("fresh")) { // forget this build's board once; a reload then resumes
  localStorage.removeItem(KEY);
  params.delete("fresh");
  history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
}

const $ = (id) => document.getElementById(id);
const logBox = $("console");
// the firmware's notes a newcomer reads as errors, and what they mean on this page
const NOTES = [
  [/^tables: no \/tables\/\S+; playing on without it/m,
    "  (not an error: this page carries no endgame tables, built by `make tablebase` for a " +
    "board; the computer plays on by its search, as a board that was not sent them)"],
];
function logLine(s) {
  if (!s) return;
  for (const [re, note] of NOTES) if (re.test(s)) s = s.replace(re, (m) => m + "\n" + note);
  logBox.textContent += s + "\n";
  const lines = logBox.textContent.split("\n");
  if (lines.length > 200) logBox.textContent = lines.slice(-200).join("\n");
  logBox.scrollTop = logBox.scrollHeight;
}

// -- settings from the address, for a first visit (as set in the board's menu) -------
function urlSettings() {
  const s = {};
  const levels = ["person", "beginner", "amateur", "strong", "master"];
  if (params.get("variant")) s.variant = params.get("variant");
  if (params.get("level") && levels.includes(params.get("level"))) s.opponent = levels.indexOf(params.get("level"));
  if (params.has("two")) s.opponent = 0;
  if (params.has("quick")) s.quick = 1;
  if (params.get("coaching")) s.coaching = params.get("coaching") === "off" ? 0 : 1;
  return Object.keys(s).length ? JSON.stringify(s) : "";
}

// -- the VM and the firmware ----------------------------------------------------------
async function start() {
  const t0 = performance.now();
  const [bundle, mp] = await Promise.all([
    fetch("py/bundle.json?v=@BUNDLE_VERSION@").then((r) => {
      if (!r.ok) throw new Error("py/bundle.json: " + r.status);
      return r.json();
    }),
    loadMicroPython({ heapsize: 8 * 1024 * 1024, linebuffer: true, stdout: logLine, stderr: logLine }),
  ]);
  stats.vmLoadMs = performance.now() - t0;
  const t1 = performance.now();
  for (const [path, text] of Object.entries(bundle)) {
    let cur = "";
    const parts = path.split("/").filter(Boolean);
    for (const part of parts.slice(0, -1)) {
      cur += "/" + part;
      try { mp.FS.mkdir(cur); } catch (e) { /* exists */ }
    }
    // an opening book is binary: base64 in the bundle, bytes in the VM's files
    mp.FS.writeFile(path, text.startsWith("base64:")
      ? Uint8Array.from(atob(text.slice(7)), (c) => c.charCodeAt(0)) : text);
  }
  mp.runPython("import sys\nsys.path.insert(0, '/lib')");
  const mod = mp.pyimport("webboard");
  const saved = localStorage.getItem(KEY) || "";
  const seed = (Date.now() & 0x3fff) + 1;
  const wb = mod.WebBoard(profile, saved, seed, saved ? "" : urlSettings());
  stats.bootMs = performance.now() - t1; // the firmware compiled, imported and booted
  window.mancala.wb = wb;
  window.mancala.mp = mp;
  return wb;
}

// -- drawing the board --------------------------------------------------------------
const PIT_X = (k) => 200 + k * 120;
const ROW_Y = [305, 125]; // South row, North row
const STORE_X = { 6: 925, 13: 75 };
const STORE_Y = 215;

function centre(i) {
  if (i === 6 || i === 13) return [STORE_X[i], STORE_Y];
  if (i < 6) return [PIT_X(i), ROW_Y[0]];
  return [PIT_X(12 - i), ROW_Y[1]]; // N6 (12) on the left
}

function stadiumPoint(cx, cy, w, h, s) {
  // s in [0, 1): clockwise from the top centre along a stadium w x h
  const r = w / 2, L = h - 2 * r, P = 2 * L + 2 * Math.PI * r;
  let d = s * P;
  const arc = (a0, ox, oy) => [ox + r * Math.cos(a0), oy + r * Math.sin(a0)];
  const top = cy - L / 2, bottom = cy + L / 2;
  if (d < Math.PI * r / 2) return arc(-Math.PI / 2 + d / r, cx, top);
  d -= Math.PI * r / 2;
  if (d < L) return [cx + r, top + d];
  d -= L;
  if (d < Math.PI * r) return arc(d / r, cx, bottom);
  d -= Math.PI * r;
  if (d < L) return [cx - r, bottom - d];
  d -= L;
  return arc(Math.PI + d / r, cx, top);
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

const ledEls = [], glowEls = [], countEls = [], menuEls = [], hitEls = [];
function buildBoard(layout) {
  const pits = $("pits"), leds = $("leds"), glows = $("glows"), labels = $("labelsLayer"), hits = $("hits");
  for (const g of [pits, leds, glows, labels, hits]) g.replaceChildren();
  for (let i = 0; i < 14; i++) {
    const [cx, cy] = centre(i);
    const store = i === 6 || i === 13;
    const [first, n] = layout.leds[i];
    if (store) el("rect", { x: cx - 45, y: cy - 165, width: 90, height: 330, rx: 45, fill: "url(#pitGrad)" }, pits);
    else el("circle", { cx, cy, r: 42, fill: "url(#pitGrad)" }, pits);
    const nameY = store ? cy + 195 : (i < 6 ? cy + 78 : cy - 66);
    el("text", { x: cx, y: nameY, class: "pitname" }, labels).textContent = layout.names[i];
    for (let j = 0; j < n; j++) {
      let x = cx, y = cy, r = 6;
      if (n === 1) r = 13;
      else if (store) [x, y] = stadiumPoint(cx, cy, 110, 350, j / n);
      else [x, y] = [cx + 53 * Math.cos(-Math.PI / 2 + 2 * Math.PI * j / n),
        cy + 53 * Math.sin(-Math.PI / 2 + 2 * Math.PI * j / n)];
      glowEls[first + j] = el("circle", { cx: x, cy: y, r: r * 1.8, fill: "#000", opacity: 0 }, glows);
      ledEls[first + j] = el("circle", { cx: x, cy: y, r, class: "led", fill: "#2a2520",
        "data-i": first + j, "data-pit": i, "data-rgb": "0,0,0" }, leds);
    }
    const c = el("text", { x: cx, y: n === 1 ? cy + (store ? 40 : 28) : cy, class: "count", "data-pit": i }, labels);
    countEls[i] = c;
    // in the menu: the setting a South pit picks (and its value), a value a North pit sets
    const mw = el("text", { x: cx, y: store ? cy - 14 : cy - 8, class: "menuword", "data-pit": i }, labels);
    el("tspan", { x: cx, dy: 0, class: "what" }, mw);
    el("tspan", { x: cx, dy: 18, class: "value" }, mw);
    menuEls[i] = mw;
    const hit = store
      ? el("rect", { x: cx - 62, y: cy - 185, width: 124, height: 370, rx: 60, class: "hit", "data-pit": i }, hits)
      : el("circle", { cx, cy, r: 62, class: "hit", "data-pit": i }, hits);
    hit.setAttribute("aria-label", layout.names[i]);
    hitEls[i] = hit;
  }
}

const rgbCache = [];
const DIM = 90; // below this (of 255, brightness undone) an LED is a dim glow ...
const DIM_SHOWN = 200; // ... drawn as a ring this bright
function paint(layout, hex, scale) {
  // the chain's buffer through the profile's colour order, brightness level undone
  const [ro, go, bo] = layout.order;
  const boost = 255 / Math.max(1, scale);
  for (let i = 0; i < layout.led_count; i++) {
    const e = ledEls[i];
    if (!e) continue;
    const j = 6 * i;
    const r = parseInt(hex.substr(j + 2 * ro, 2), 16);
    const g = parseInt(hex.substr(j + 2 * go, 2), 16);
    const b = parseInt(hex.substr(j + 2 * bo, 2), 16);
    const key = r + "," + g + "," + b;
    if (rgbCache[i] === key) continue;
    rgbCache[i] = key;
    e.setAttribute("data-rgb", key);
    const m = Math.max(r, g, b);
    if (m === 0) {
      e.setAttribute("fill", "#2a2520");
      e.removeAttribute("stroke");
      e.classList.remove("dim");
      glowEls[i].setAttribute("opacity", 0);
      continue;
    }
    let R = Math.min(255, Math.round(r * boost)), G = Math.min(255, Math.round(g * boost)),
      B = Math.min(255, Math.round(b * boost));
    const M = Math.max(R, G, B);
    if (M < DIM) {
      // a dim background ("you may play", the menu's values): on a screen it would be
      // all but black, so it is drawn as a ring in its hue at a level the eye sees
      // (the terminal draws it as a hollow dot the same way)
      const k = DIM_SHOWN / Math.max(1, M);
      const ring = "rgb(" + Math.min(255, Math.round(R * k)) + "," + Math.min(255, Math.round(G * k)) +
        "," + Math.min(255, Math.round(B * k)) + ")";
      e.setAttribute("fill", "#2a2520");
      e.setAttribute("stroke", ring);
      e.classList.add("dim");
      glowEls[i].setAttribute("fill", ring);
      glowEls[i].setAttribute("opacity", 0.35);
      continue;
    }
    e.removeAttribute("stroke");
    e.classList.remove("dim");
    const col = "rgb(" + R + "," + G + "," + B + ")";
    e.setAttribute("fill", col);
    glowEls[i].setAttribute("fill", col);
    glowEls[i].setAttribute("opacity", Math.min(1, M / 255).toFixed(2));
  }
}

// -- fingers: pointer, touch, keys, gesture buttons ----------------------------------
function run() {
  let wb, layout;
  let online = null; // the Online panel (online.js): while a game is on, it has the LEDs
  const onlineOn = () => online !== null && online.active();
  const pointers = new Map(); // pointerId -> pit
  const latched = new Set();
  const waiting = []; // [pit, t] presses whose lit frame is awaited (click -> light)
  const keysHeld = new Map();

  function down(pit, t) {
    if (onlineOn()) { // a click on the online game's board: this side's move, or why not
      online.tap(pit);
      hitEls[pit].classList.add("held");
      return;
    }
    wb.down(pit);
    hitEls[pit].classList.add("held");
    waiting.push([pit, t]);
  }
  function up(pit) {
    wb.up(pit);
    hitEls[pit].classList.remove("held", "latched");
  }
  function gesture(pits, ms) {
    if (onlineOn()) return; // (the board's chords: not in an online game)
    wb.gesture(JSON.stringify(pits), ms);
  }
  function pitOf(target) {
    const p = target && target.getAttribute && target.getAttribute("data-pit");
    return p === null || p === undefined ? -1 : parseInt(p, 10);
  }

  const svg = $("board");
  svg.addEventListener("contextmenu", (e) => e.preventDefault());
  svg.addEventListener("pointerdown", (e) => {
    const pit = pitOf(e.target);
    if (pit < 0 || !wb) return;
    e.preventDefault();
    if (e.button === 2 || e.shiftKey) { // mark this pit: the first of a chord
      if (latched.has(pit)) { latched.delete(pit); hitEls[pit].classList.remove("latched"); }
      else { latched.add(pit); hitEls[pit].classList.add("latched"); }
      return;
    }
    if (latched.has(pit)) return;
    try { e.target.setPointerCapture(e.pointerId); } catch (err) { /* synthetic pointer */ }
    pointers.set(e.pointerId, pit);
    // the marked pits go down with this one: a chord is pits pressed together
    // (the firmware takes a chord only when they go down within its window)
    for (const p of latched) down(p, e.timeStamp);
    down(pit, e.timeStamp);
  });
  const lift = (e) => {
    if (!pointers.has(e.pointerId)) return;
    const pit = pointers.get(e.pointerId);
    pointers.delete(e.pointerId);
    up(pit);
    if (pointers.size === 0) { // the chord ends with its last finger
      for (const p of latched) up(p);
      latched.clear();
    }
  };
  svg.addEventListener("pointerup", lift);
  svg.addEventListener("pointercancel", lift);

  for (const b of document.querySelectorAll("#gestures button")) {
    b.addEventListener("click", () => {
      if (wb) gesture(b.dataset.pits.split(",").map(Number), Number(b.dataset.ms));
    });
  }

  function keyPits(ch) {
    const low = ch.toLowerCase();
    if (KEYS_S.includes(low) && low.length === 1) return [[KEYS_S.indexOf(low)], ch !== low ? 1500 : 0];
    if (KEYS_N.includes(low) && low.length === 1) return [[7 + KEYS_N.indexOf(low)], ch !== low ? 1500 : 0];
    const fixed = { j: [[6], 0], "`": [[13], 0], u: [[0, 5], 200], U: [[7, 12], 200], i: [[2, 3], 200],
      I: [[9, 10], 200], o: [[6, 13], 200], m: [[6, 13], 3000] };
    return fixed[ch] || null;
  }
  window.addEventListener("keydown", (e) => {
    if (!wb || e.repeat || e.ctrlKey || e.altKey || e.metaKey) return;
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT")) return;
    const k = keyPits(e.key);
    if (!k) return;
    e.preventDefault();
    const [pits, ms] = k;
    if (ms) { gesture(pits, ms); return; }
    keysHeld.set(e.code, pits[0]);
    down(pits[0], e.timeStamp); // held as long as the key is
  });
  window.addEventListener("keyup", (e) => {
    if (!keysHeld.has(e.code)) return;
    up(keysHeld.get(e.code));
    keysHeld.delete(e.code);
  });

  // -- the loop: real time in, frames out ------------------------------------------
  let last = performance.now(), lastMode = "", fsVersion = -1, labelsDue = 0, statusDue = 0;
  let labelsStale = false;
  let frameHex = "";
  function tick() {
    const now = performance.now();
    const dt = now - last;
    last = now;
    const t = performance.now();
    let f;
    try {
      f = onlineOn() ? online.step(Math.round(dt)) : wb.step(Math.round(dt));
    } catch (err) {
      $("loading").textContent = "the page's glue failed:\n" + err.message;
      $("loading").className = "error";
      return;
    }
    stats.stepMs += performance.now() - t;
    stats.steps++;
    if (f) {
      const parts = f.split("|");
      const mode = parts[1], scale = Number(parts[2]), stable = Number(parts[3]), fsv = Number(parts[4]);
      frameHex = parts[5];
      paint(layout, frameHex, scale);
      stats.frames++;
      if (stats.loadMs === null) {
        stats.loadMs = performance.now(); // since navigation start (timeOrigin)
        $("loading").className = "gone";
      }
      for (let k = waiting.length - 1; k >= 0; k--) {
        if (stable >> waiting[k][0] & 1) { // the firmware saw the press and drew it
          const t0 = waiting[k][1];
          requestAnimationFrame(() => stats.clicks.push(performance.now() - t0));
          waiting.splice(k, 1);
        }
      }
      if (waiting.length > 20) waiting.splice(0, waiting.length - 20);
      if (mode !== lastMode) {
        lastMode = mode;
        $("mode").textContent = mode;
        $("mode").dataset.mode = mode;
        statusDue = 0;
      }
      if (fsv !== fsVersion) { // the firmware wrote /data: keep it across a reload
        fsVersion = fsv;
        try {
          localStorage.setItem(KEY, wb.files_json());
          $("saved").textContent = "saved in this browser";
        } catch (err) {
          $("saved").textContent = "could not save: " + err.message;
        }
      }
      labelsStale = true;
    }
    if (labelsStale && now >= labelsDue) { // the counts read back from the LEDs, not too often
      labelsStale = false;
      labelsDue = now + 150;
      showWords(onlineOn() ? online.words() : JSON.parse(wb.words()));
      $("labelsLayer").dataset.frame = String(stats.frames);
    }
    if (now >= statusDue) {
      statusDue = now + 500;
      const st = onlineOn() ? { record: window.mancala.onlineStatus && window.mancala.onlineStatus.record }
        : JSON.parse(wb.status());
      $("record").textContent = st.record || "–";
      $("players").textContent = st.players ? "South: " + st.players[0] + " · North: " + st.players[1] +
        (st.over ? " · game over" : " · " + (st.side === "S" ? "South" : "North") + " to move") : "";
      $("download").disabled = !st.record;
      $("download").dataset.record = st.record || "";
      logLine(wb.logs());
      showPower(JSON.parse(wb.power()));
    }
    setTimeout(tick, 8);
  }

  let lastLines = "", lastEvent = "";
  function showWords(w) { // mancala/words.py: the terminal's lines, with clicks for keys
    const text = w.lines.join("\n");
    if (text !== lastLines) {
      lastLines = text;
      $("words").replaceChildren(...w.lines.map((ln) => {
        const d = document.createElement("div");
        d.textContent = ln;
        return d;
      }));
    }
    if (w.event && w.event !== lastEvent) { // the computer's move, a grade, the result
      const li = document.createElement("li");
      li.textContent = w.event;
      $("events").prepend(li);
      while ($("events").children.length > 8) $("events").lastChild.remove();
    }
    lastEvent = w.event;
    const items = {}, values = {};
    if (w.menu) {
      for (const [pit, what, value, on] of w.menu.items) {
        if (!(pit in items) || on) items[pit] = [what, value, on]; // a shared pit: the chosen item
      }
      for (const [pit, value, on] of w.menu.values) values[pit] = [value, on];
      items[13] = ["starts a", "new game", false]; // the North store
    }
    for (let i = 0; i < 14; i++) {
      countEls[i].textContent = w.counts[i];
      countEls[i].dataset.count = w.counts[i];
      const [what, value] = menuEls[i].children;
      const it = items[i], v = values[i];
      what.textContent = it ? it[0] : v ? v[0] : "";
      value.textContent = it ? it[1] : v && v[1] ? "chosen" : "";
      menuEls[i].classList.toggle("on", !!(it ? it[2] : v && v[1]));
      menuEls[i].dataset.word = it ? it[0] + ": " + it[1] : v ? v[0] : "";
    }
  }

  function showPower(p) { // the idle state and the simulated cell (mancala/idle.py)
    const words = { awake: "awake", dim: "dim (a pit wakes it)", dark: "dark (a pit wakes it)",
      waking: "waking (the press is not played)", off: "dark: battery empty, plug USB in" };
    $("idle").textContent = (words[p.idle] || "–") + (p.after ? " · idle after " + p.after + " min" : " · never idles");
    $("idle").dataset.idle = p.idle || "";
    if (p.mv !== undefined) {
      $("cell").hidden = false;
      $("batteryText").textContent = p.usb ? "on USB" : p.mv + " mV (" + p.percent + " %)" + (p.low ? " LOW" : "");
    }
  }
  function setCell() {
    wb.set_battery($("usb").checked ? 4700 : Number($("battery").value));
    statusDue = 0;
  }
  $("battery").addEventListener("input", setCell);
  $("usb").addEventListener("change", setCell);
  $("idleNow").addEventListener("click", () => { wb.idle_now(); statusDue = 0; });

  $("download").addEventListener("click", () => {
    const text = $("download").dataset.record;
    if (!text) return;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text + "\n"], { type: "text/plain" }));
    a.download = "mancala-game.txt";
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });

  $("profile").value = profile;
  $("profile").addEventListener("change", () => {
    params.set("profile", $("profile").value);
    location.search = "?" + params.toString();
  });
  $("labels").addEventListener("change", () => {
    $("labelsLayer").classList.toggle("hidden", !$("labels").checked);
    labelsDue = 0;
    labelsStale = true;
  });
  $("forget").addEventListener("click", () => {
    if (!confirm("Forget the saved game and settings of this build?")) return;
    localStorage.removeItem(KEY);
    location.reload();
  });

  start().then((board) => {
    wb = board;
    layout = JSON.parse(wb.layout());
    window.mancala.layout = layout;
    buildBoard(layout);
    online = setupOnline(window.mancala.mp, wb, params);
    window.mancala.online = online;
    last = performance.now();
    tick();
  }).catch((err) => {
    $("loading").textContent = "The firmware could not start:\n" + (err && err.message || err);
    $("loading").className = "error";
    console.error(err);
  });
}

run();
