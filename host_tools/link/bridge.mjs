// An emulated MicroPython board: the official MicroPython WebAssembly VM's REPL,
// spoken over this process's stdin (bytes from the host) and stdout (bytes to
// the host).  host_tools/link/bridge.py puts it on a pseudo-terminal, so mpremote
// talks to it exactly as to a board on a USB serial port.
//
//   node bridge.mjs --board HOSTDIR [--heap BYTES] [--flash-size BYTES]
//                   [--no-raw-paste] [--impl-version X.Y.Z] [--impl-mpy N]
//                   [--pin N:LEVEL ...]
//
// What the bridge does that the VM cannot:
// - raw-paste mode (Ctrl-A, then Ctrl-E 'A' 0x01): the VM hangs on it, so the
//   bridge answers it itself, with the real flow-control protocol (window,
//   0x01 increments, 0x04 acknowledgement), and hands the pasted code to the
//   VM's normal raw REPL (hiding the "OK" that the raw REPL prints).
//   --no-raw-paste answers b"R\x00" (unsupported) instead.
// - soft reset (Ctrl-D at an empty prompt): the VM's REPL only returns
//   nonzero; the bridge saves the files, re-creates the VM, loads the files,
//   runs /boot.py, and /main.py when in the friendly REPL, like a board.
// - flash: the VM's filesystem is MEMFS; the board's files are mirrored into
//   HOSTDIR after every command and at every reset, so they survive soft
//   resets and restarts of the bridge (a restart is a power cycle).
// - os.statvfs reports a flash of --flash-size bytes (default 1 MiB).
// - --impl-version / --impl-mpy make sys.implementation report another
//   MicroPython version / .mpy format (to emulate older boards).
// - `machine` and `neopixel` are the project's fakes (host_tools/fakes/machine.py
//   and neopixel.py, the ones the tests give the firmware), loaded from a folder
//   of the VM that is not the board's flash (/home/bridge: never listed, synced
//   or counted), with the board's side of `machine` below (reset, reset_cause,
//   soft_reset, the deadman Timer, lightsleep on the board's clock) over the
//   fake's.  Every input pin idles released (its pull-up).  The host sets a
//   pin's level with "PIN <n> <level>" on the wake pipe (bridge.py: set_pin,
//   or "PIN" on the clock socket); the board takes it at the end of its next
//   sleep, as a program sees a Ctrl-C (a program that never sleeps sees
//   neither); --pin N:LEVEL sets one at the start (a button held through a
//   reset), and the levels set stay across soft resets.
//
// How the board starts and resets, as the rp2 and esp32 ports do (their main.c:
// ports/rp2/main.c, ports/esp32/main.c; docs/UPDATING.md "The emulated board"):
// - a soft reset runs /boot.py, then /main.py only if the REPL is the friendly
//   one (`if (pyexec_mode_kind == PYEXEC_MODE_FRIENDLY_REPL) pyexec_file_if_exists
//   ("main.py")`): a soft reset from the raw REPL (mpremote) runs boot.py only;
// - a soft reset stops every machine.Timer (`soft_timer_deinit()` in rp2's
//   soft_reset_exit; `machine_timer_deinit_all()` on esp32);
// - machine.reset() and an expired hard one-shot machine.Timer (the deadman)
//   are a hard reset: this process tells host_tools/link/bridge.py on fd 3
//   ("RESET"), which kills it and starts a new one on the same flash;
//   --after-reset drops what the board prints until boot.py has returned (the
//   USB serial port is not there yet), and "BOOTED" on fd 3 says when it is;
// - the board's clock (time.ticks_ms/us, time.time, sleeps, the deadman) is
//   the host's (--wake-fd, --skew): the CLOCK_MONOTONIC of the machine plus a
//   skew that only the host moves.  A sleep tells the host "SLEEP <until>" on
//   fd 3 and blocks on the wake pipe until the host answers "WAKE <skew>":
//   the host jumps the clock ahead when nothing else is waiting (a watcher
//   that said it is idle, no byte in flight: host_tools/link/bridge.py), so a
//   trial window or a deadman of seconds passes in milliseconds, in order;
//   code that computes (a hang) takes the time it really takes;
// - time.sleep/sleep_ms are where a running program sees Ctrl-C (the host
//   side raises a flag file, --interrupt-file): a loop that never sleeps
//   cannot be interrupted, like code hung in C on a chip, and never answers;
// - files are written through to HOSTDIR at every rename/remove (littlefs
//   commits at close/rename) and before a reset; writes past --flash-size raise
//   OSError(ENOSPC) (28).
// - power cuts at any flash operation (tests/test_update_cuts.py): with
//   $MPBOARD_OPS naming a counter file, every operation that changes the flash
//   (opening a file for writing, a write, rename, remove, mkdir, rmdir) is
//   counted across resets and listed in $MPBOARD_OPS.log; with $MPBOARD_CUT_AT
//   = N the power goes at operation N, before it happens: the flash is saved
//   as it was and the process ends (the port goes with it).
import fs from "fs";
import path from "path";

const SYSTEM_DIRS = new Set(["tmp", "home", "dev", "proc"]);

let boardDir = null;
let heap = 2 * 1024 * 1024;
let flashSize = 1024 * 1024;
let rawPaste = true;
let implVersion = null;
let implMpy = null;
let afterReset = false;
let interruptFile = null;
let controlFd = -1;
let resetCause = 1; // PWRON_RESET
let wakeFd = -1;      // the host's answers to SLEEP (the board's clock)
let skew = 0;         // ms: board time = CLOCK_MONOTONIC + skew
const pinLevels = new Map(); // pin -> level the host set (the rest idle released)
let pinsPending = [];        // [pin, level] the running program has not taken yet
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--board") boardDir = argv[++i];
  else if (a === "--heap") heap = parseInt(argv[++i], 10);
  else if (a === "--flash-size") flashSize = parseInt(argv[++i], 10);
  else if (a === "--no-raw-paste") rawPaste = false;
  else if (a === "--impl-version") implVersion = argv[++i];
  else if (a === "--impl-mpy") implMpy = parseInt(argv[++i], 10);
  else if (a === "--after-reset") { afterReset = true; resetCause = 3; } // WDT_RESET, as rp2 reports machine.reset()
  else if (a === "--interrupt-file") interruptFile = argv[++i];
  else if (a === "--control-fd") controlFd = parseInt(argv[++i], 10);
  else if (a === "--wake-fd") wakeFd = parseInt(argv[++i], 10);
  else if (a === "--skew") skew = parseFloat(argv[++i]);
  else if (a === "--pin") { const [n, l] = argv[++i].split(":").map((x) => parseInt(x, 10)); pinLevels.set(n, l ? 1 : 0); }
  else { process.stderr.write("bridge: unknown argument " + a + "\n"); process.exit(2); }
}
if (!boardDir) { process.stderr.write("usage: bridge.mjs --board HOSTDIR\n"); process.exit(2); }
fs.mkdirSync(boardDir, { recursive: true });

const projectRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const vmEntry = path.join(projectRoot, "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs");
const { loadMicroPython } = await import(vmEntry);

const log = (s) => process.stderr.write("bridge: " + s + "\n");

// ---- fd 3: what the host side (bridge.py) must do ---------------------------
function tell(line) {
  if (controlFd < 0) return;
  try { fs.writeSync(controlFd, line + "\n"); } catch (e) { controlFd = -1; }
}
const sleeper = new Int32Array(new SharedArrayBuffer(4));
function interrupted() {
  if (!interruptFile) return false;
  try { fs.unlinkSync(interruptFile); return true; } catch (e) { return false; }
}
// ---- the board's clock ------------------------------------------------------------
// process.hrtime is CLOCK_MONOTONIC, as Python's time.monotonic() on the host.
const monoMs = () => Number(process.hrtime.bigint()) / 1e6;
const boardMs = () => monoMs() + skew;
const startMs = boardMs(); // ticks count from the (hard) start, as on a chip
const startEpoch = Date.now() / 1000;
const wakeBuf = Buffer.alloc(256);
let wakeText = "";
function readWake() {
  // One line from the host (blocking: the VM is asleep meanwhile); a pin's new
  // level ("PIN n level") is kept for the end of the sleep, and the next line read.
  for (;;) {
    const i = wakeText.indexOf("\n");
    if (i >= 0) {
      const line = wakeText.slice(0, i);
      wakeText = wakeText.slice(i + 1);
      const w = line.split(" ");
      if (w[0] === "PIN" && w.length === 3) {
        const n = parseInt(w[1], 10);
        const l = parseInt(w[2], 10) ? 1 : 0;
        if (n >= 0) { pinLevels.set(n, l); pinsPending.push([n, l]); }
        continue;
      }
      return line;
    }
    let n = 0;
    try { n = fs.readSync(wakeFd, wakeBuf, 0, wakeBuf.length, null); }
    catch (e) {
      if (e.code === "EAGAIN") { Atomics.wait(sleeper, 0, 0, 1); continue; }
      return "STOP";
    }
    if (n === 0) return "STOP";
    wakeText += wakeBuf.toString("latin1", 0, n);
  }
}
// Called from Python in the VM (module `js`): synchronous, the VM is running.
globalThis.bridgeTicksMs = () => Math.floor(boardMs() - startMs) % 0x40000000;
globalThis.bridgeTicksUs = () => Math.floor((boardMs() - startMs) * 1000) % 0x40000000;
globalThis.bridgeTime = () => startEpoch + (boardMs() - startMs) / 1000;
globalThis.bridgeSleep = (ms) => {
  // Sleep until the board's clock says so, waking for a Ctrl-C from the host:
  // 1 = interrupted, | 2 = pins changed meanwhile (bridgePins says which).
  const r = sleepFor(ms);
  return r | (pinsPending.length ? 2 : 0);
};
globalThis.bridgePins = () => {
  const s = pinsPending.map(([n, l]) => n + ":" + l).join(" ");
  pinsPending = [];
  return s;
};
function sleepFor(ms) {
  if (wakeFd < 0) {
    const end = Date.now() + Math.max(0, ms);
    for (;;) {
      if (interrupted()) return 1;
      const left = end - Date.now();
      if (left <= 0) return 0;
      Atomics.wait(sleeper, 0, 0, Math.min(left, 10));
    }
  }
  const until = boardMs() + Math.max(0, ms);
  flushOut(); // what was printed before the sleep reaches the host first
  for (;;) {
    if (interrupted()) return 1;
    if (boardMs() >= until) return 0;
    tell("SLEEP " + until);
    const line = readWake();
    if (line === "STOP") { syncOut(mp); flushOut(); process.exit(0); }
    const w = line.split(" ");
    if (w[0] === "WAKE") skew = parseFloat(w[1]);
  }
}
globalThis.bridgeSync = () => { syncOut(mp); return 0; };
globalThis.bridgeArm = (ms) => { syncOut(mp); flushOut(); tell("ARM " + (boardMs() + Math.max(0, ms | 0))); return 0; };
globalThis.bridgeDisarm = () => { tell("DISARM"); return 0; };
globalThis.bridgeReset = () => {
  syncOut(mp);
  flushOut();
  tell("RESET");
  for (;;) Atomics.wait(sleeper, 0, 0, 1000); // the host kills this process
};
globalThis.bridgeResetCause = () => resetCause;

// ---- output to the host ---------------------------------------------------
let mute = false;        // swallow VM output (banner while entering raw REPL)
let swallowOK = 0;       // bytes of the raw REPL's "OK" still to hide (raw-paste)
const outChunks = [];
let outScheduled = false;
function flushOut() {
  outScheduled = false;
  if (outChunks.length) process.stdout.write(Buffer.concat(outChunks.splice(0)));
}
function send(buf) {
  outChunks.push(Buffer.from(buf));
  if (!outScheduled) { outScheduled = true; setImmediate(flushOut); }
}
let running = false;     // a script (boot.py/main.py) runs: the event loop is blocked
let dropOut = false;     // after a hard reset, until boot.py has returned
function vmOut(bytes) {
  if (mute || dropOut) return;
  let b = Buffer.from(bytes);
  while (swallowOK > 0 && b.length > 0) {
    const want = swallowOK === 2 ? 0x4f : 0x4b; // 'O', 'K'
    if (b[0] === want) { b = b.subarray(1); swallowOK--; } else { swallowOK = 0; }
  }
  if (b.length) { send(b); if (running) flushOut(); }
}

// ---- files: host folder <-> MEMFS ------------------------------------------
let synced = new Map(); // vm path -> Buffer last written to the host folder
let dirty = true;        // the VM's files may differ from the host folder

function watchWrites(m) {
  // Every change to the files goes through one of these: a sync with none of
  // them since the last has nothing to do (it would read every file again).
  for (const n of ["write", "truncate", "ftruncate", "open", "rename", "unlink", "rmdir", "mkdir",
                   "writeFile", "symlink", "chmod"]) {
    const f = m.FS[n];
    if (typeof f !== "function") continue;
    m.FS[n] = function (...a) { dirty = true; return f.apply(this, a); };
  }
}

function copyIn(mp) {
  synced = new Map();
  const walk = (hostDir, vmDir) => {
    for (const name of fs.readdirSync(hostDir)) {
      const h = path.join(hostDir, name);
      const v = (vmDir === "/" ? "" : vmDir) + "/" + name;
      if (fs.statSync(h).isDirectory()) {
        try { mp.FS.mkdir(v); } catch (e) { /* exists */ }
        walk(h, v);
      } else {
        const data = fs.readFileSync(h);
        mp.FS.writeFile(v, data);
        synced.set(v, data);
      }
    }
  };
  walk(boardDir, "/");
}

function vmTree(mp) {
  const files = new Map();
  const dirs = [];
  const walk = (vmDir) => {
    for (const name of mp.FS.readdir(vmDir)) {
      if (name === "." || name === "..") continue;
      if (vmDir === "/" && SYSTEM_DIRS.has(name)) continue;
      const v = (vmDir === "/" ? "" : vmDir) + "/" + name;
      const st = mp.FS.stat(v);
      if (mp.FS.isDir(st.mode)) { dirs.push(v); walk(v); }
      else files.set(v, Buffer.from(mp.FS.readFile(v)));
    }
  };
  walk("/");
  return { files, dirs };
}

function syncOut(mp) {
  if (!mp || !dirty) return;
  dirty = false;
  const { files, dirs } = vmTree(mp);
  for (const d of dirs) fs.mkdirSync(path.join(boardDir, d), { recursive: true });
  for (const [v, data] of files) {
    const old = synced.get(v);
    if (old && old.equals(data)) continue;
    fs.writeFileSync(path.join(boardDir, v), data);
  }
  // Remove what the board removed (files, then directories deepest first).
  const hostWalk = (hostDir, vmDir, outDirs) => {
    for (const name of fs.readdirSync(hostDir)) {
      const h = path.join(hostDir, name);
      const v = (vmDir === "/" ? "" : vmDir) + "/" + name;
      if (fs.statSync(h).isDirectory()) { hostWalk(h, v, outDirs); outDirs.push([h, v]); }
      else if (!files.has(v)) fs.rmSync(h);
    }
  };
  const hostDirs = [];
  hostWalk(boardDir, "/", hostDirs);
  const dirSet = new Set(dirs);
  for (const [h, v] of hostDirs) if (!dirSet.has(v)) fs.rmSync(h, { recursive: true, force: true });
  synced = files;
}

function usedBlocks(m) {
  let blocks = 0;
  const walk = (vmDir) => {
    for (const name of m.FS.readdir(vmDir)) {
      if (name === "." || name === "..") continue;
      if (vmDir === "/" && SYSTEM_DIRS.has(name)) continue;
      const v = (vmDir === "/" ? "" : vmDir) + "/" + name;
      const st = m.FS.stat(v);
      if (m.FS.isDir(st.mode)) { blocks += 1; walk(v); }
      else blocks += Math.ceil(st.size / 4096);
    }
  };
  walk("/");
  return blocks;
}

function enforceFlash(m) {
  // A write that would take more 4 KiB blocks than the flash has: ENOSPC.
  const total = Math.floor(flashSize / 4096);
  const write = m.FS.write;
  m.FS.write = function (stream, buffer, offset, length, position, canOwn) {
    const p = stream && stream.path;
    if (p && !SYSTEM_DIRS.has(p.split("/")[1])) {
      const pos = (position === undefined || position === null) ? stream.position : position;
      const oldSize = stream.node && stream.node.usedBytes !== undefined ? stream.node.usedBytes : 0;
      const newSize = Math.max(oldSize, pos + length);
      const extra = Math.ceil(newSize / 4096) - Math.ceil(oldSize / 4096);
      // 28 is a board's ENOSPC.  (The VM would say 51, Emscripten's ENOSPC; a
      // file's write() is not behind the errno map of setupCode, so the number
      // the board would raise is thrown here directly.)
      if (extra > 0 && usedBlocks(m) + extra > total) throw new m.FS.ErrnoError(28);
    }
    return write.call(this, stream, buffer, offset, length, position, canOwn);
  };
}

const opsFile = process.env.MPBOARD_OPS || null;
const cutAt = parseInt(process.env.MPBOARD_CUT_AT || "0", 10);

function watchOps(m) {
  // Count every flash-changing operation; cut the power at operation cutAt.
  if (!opsFile) return;
  const boardPath = (p) => typeof p === "string" && p.startsWith("/") && !SYSTEM_DIRS.has(p.split("/")[1]);
  const exists = (p) => { try { m.FS.lookupPath(p); return true; } catch (e) { return false; } };
  const op = (kind, p) => {
    let n = 0;
    try { n = parseInt(fs.readFileSync(opsFile, "utf8"), 10) || 0; } catch (e) { /* first */ }
    n += 1;
    if (n === cutAt) {
      syncOut(m);
      flushOut();
      fs.appendFileSync(opsFile + ".log", "CUT " + n + " " + kind + " " + p + "\n");
      process.exit(0);
    }
    fs.writeFileSync(opsFile, String(n));
    fs.appendFileSync(opsFile + ".log", n + " " + kind + " " + p + "\n");
  };
  const wrap = (name, kind, counted) => {
    const f = m.FS[name];
    m.FS[name] = function (...a) {
      if (counted(...a)) {
        const where = typeof a[0] === "string" ? a[0] : (a[0] && a[0].path) || "?";
        op(kind, kind === "rename" ? where + " " + a[1] : where);
      }
      return f.apply(this, a);
    };
  };
  wrap("open", "open", (p, flags) => boardPath(p) && typeof flags === "number" && (flags & (64 | 512)) !== 0);
  wrap("write", "write", (stream) => stream && boardPath(stream.path));
  wrap("rename", "rename", (a) => boardPath(a) && exists(a));
  wrap("unlink", "remove", (p) => boardPath(p) && exists(p));
  wrap("rmdir", "rmdir", (p) => boardPath(p) && exists(p));
  wrap("mkdir", "mkdir", (p) => boardPath(p) && !exists(p));
}

// ---- the board's `machine` and `neopixel`: the project's fakes ------------------
const FAKES_DIR = "/home/bridge"; // in the VM, not the board's flash (SYSTEM_DIRS)
const fakes = ["machine.py", "neopixel.py"].map(
  (n) => [n, fs.readFileSync(path.join(projectRoot, "host_tools", "fakes", n))]);

function installFakes(m) {
  try { m.FS.mkdir(FAKES_DIR); } catch (e) { /* exists */ }
  for (const [n, data] of fakes) m.FS.writeFile(FAKES_DIR + "/" + n, data);
}

// ---- the VM ------------------------------------------------------------------
let mp = null;
let mode = "friendly";   // which REPL the board is in: "friendly" | "raw"

function setupCode() {
  let code = "import os, sys, builtins\n";
  code += "sys.path.insert(0, '/lib')\n";
  // Emscripten's errno numbers -> MicroPython's (what a board raises).
  code += "def _bridge_errno():\n" +
    "    m = {44: 2, 20: 17, 54: 20, 31: 21, 55: 39, 28: 22, 51: 28, 2: 13, 63: 9}\n" +
    "    def wrap(f):\n" +
    "        def g(*a, **k):\n" +
    "            try:\n" +
    "                return f(*a, **k)\n" +
    "            except OSError as e:\n" +
    "                n = e.args[0] if e.args else None\n" +
    "                if n in m:\n" +
    "                    raise OSError(m[n])\n" +
    "                raise\n" +
    "        return g\n" +
    "    for n in ('stat', 'listdir', 'ilistdir', 'mkdir', 'remove', 'unlink', 'rename', 'rmdir', 'chdir'):\n" +
    "        setattr(os, n, wrap(getattr(os, n)))\n" +
    "    builtins.open = wrap(builtins.open)\n" +
    // The VM's own folders at / are not the board's: hide them from listings.
    "    sysd = ('tmp', 'home', 'dev', 'proc')\n" +
    "    ld, ild, cwd = os.listdir, os.ilistdir, os.getcwd\n" +
    "    def listdir(*a):\n" +
    "        r = ld(*a)\n" +
    "        return [n for n in r if n not in sysd] if (a[0] if a else cwd()) == '/' else r\n" +
    "    def ilistdir(*a):\n" +
    "        r = ild(*a)\n" +
    "        return [e for e in r if e[0] not in sysd] if (a[0] if a else cwd()) == '/' else r\n" +
    "    os.listdir, os.ilistdir = listdir, ilistdir\n" +
    "_bridge_errno()\n" +
    "del _bridge_errno\n";
  // Flash size for os.statvfs: used space = the board's files, 4 KiB blocks.
  code += "def _bridge_statvfs(p, _os=os, _bs=4096, _n=" + Math.floor(flashSize / 4096) + "):\n" +
    "    def used(d):\n" +
    "        t = 0\n" +
    "        for e in _os.ilistdir(d):\n" +
    "            if d == '/' and e[0] in ('tmp', 'home', 'dev', 'proc'):\n" +
    "                continue\n" +
    "            q = (d if d.endswith('/') else d + '/') + e[0]\n" +
    "            if e[1] & 0x4000:\n" +
    "                t += 1 + used(q)\n" +
    "            else:\n" +
    "                t += (_os.stat(q)[6] + _bs - 1) // _bs\n" +
    "        return t\n" +
    "    f = _n - used('/')\n" +
    "    if f < 0:\n" +
    "        f = 0\n" +
    "    return (_bs, _bs, _n, f, f, 0, 0, 0, 0, 255)\n" +
    "os.statvfs = _bridge_statvfs\n" +
    "del _bridge_statvfs\n";
  // The board's side of resets, timers, sleeping and flash (see the top).
  code += "def _bridge_board():\n" +
    "    import js, time\n" +
    // the fakes the tests give the firmware (host_tools/fakes), imported from the
    // VM's own folder: in sys.modules from now on, wherever sys.path points
    "    sys.path.insert(0, '" + FAKES_DIR + "')\n" +
    "    try:\n" +
    "        import machine as m\n" +
    "        import neopixel\n" +
    "    finally:\n" +
    "        sys.path.remove('" + FAKES_DIR + "')\n" +
    "    for n in ('rename', 'remove', 'unlink', 'rmdir'):\n" +
    "        def synced(*a, _f=getattr(os, n)):\n" +
    "            r = _f(*a)\n" +
    "            js.bridgeSync()\n" +
    "            return r\n" +
    "        setattr(os, n, synced)\n" +
    "    def pins(s):\n" +
    "        for w in s.split():\n" +
    "            n, l = w.split(':')\n" +
    "            m.set_input(int(n), int(l))\n" +
    "    def sleep_ms(ms):\n" +
    "        r = js.bridgeSleep(int(ms))\n" +
    "        if r & 2:\n" +
    "            pins(js.bridgePins())\n" +
    "        if r & 1:\n" +
    "            raise KeyboardInterrupt\n" +
    "    def sleep(s):\n" +
    "        sleep_ms(int(s * 1000))\n" +
    "    def sleep_us(us):\n" +
    "        sleep_ms(int(us) // 1000)\n" +
    "    time.sleep_ms, time.sleep, time.sleep_us = sleep_ms, sleep, sleep_us\n" +
    "    time.ticks_ms = lambda: js.bridgeTicksMs()\n" +
    "    time.ticks_us = lambda: js.bridgeTicksUs()\n" +
    "    time.ticks_cpu = time.ticks_us\n" +
    "    time.time = lambda: int(js.bridgeTime())\n" +
    "    class Timer:\n" +
    "        ONE_SHOT = 0\n" +
    "        PERIODIC = 1\n" +
    "        def __init__(self, id=-1, **kw):\n" +
    "            self.armed = False\n" +
    "            if kw:\n" +
    "                self.init(**kw)\n" +
    "        def init(self, mode=1, period=-1, callback=None, hard=False, freq=None):\n" +
    "            if not hard or mode != 0:\n" +
    "                raise ValueError('emulated board: only a hard one-shot Timer (a deadman) is emulated')\n" +
    "            self.armed = True\n" +
    "            js.bridgeArm(int(period))\n" +
    "        def deinit(self):\n" +
    "            if self.armed:\n" +
    "                self.armed = False\n" +
    "                js.bridgeDisarm()\n" +
    // the board's side of `machine` over the fake's (whose reset() clears a
    // harness's pins: here machine.reset() is the chip's)
    "    m.PWRON_RESET, m.HARD_RESET, m.WDT_RESET, m.DEEPSLEEP_RESET, m.SOFT_RESET = 1, 2, 3, 4, 5\n" +
    "    m.Timer = Timer\n" +
    "    def reset():\n" +
    "        js.bridgeReset()\n" +
    "    def soft_reset():\n" +
    "        raise SystemExit\n" +
    "    def reset_cause():\n" +
    "        return js.bridgeResetCause()\n" +
    "    m.reset, m.soft_reset, m.reset_cause = reset, soft_reset, reset_cause\n" +
    // a light sleep on the board's clock (the fake's calls _lightsleep[0])
    "    m._lightsleep[0] = lambda ms: sleep_ms(0x3FFFFFFF if ms is None else ms)\n" +
    "    for n, l in (" + [...pinLevels].map(([n, l]) => "(" + n + ", " + l + "), ").join("") + "):\n" +
    "        m.set_input(n, l)\n" +
    "_bridge_board()\n" +
    "del _bridge_board\n";
  if (implVersion !== null || implMpy !== null) {
    const v = (implVersion || "1.27.0").split(".").map((x) => parseInt(x, 10));
    while (v.length < 3) v.push(0);
    code += "class _BridgeImpl:\n" +
      "    name = 'micropython'\n" +
      "    version = (" + v.join(", ") + ", '')\n" +
      "    _machine = sys.implementation._machine\n" +
      (implMpy !== null ? "    _mpy = " + implMpy + "\n" : "") +
      "class _BridgeSys:\n    pass\n" +
      "_s = _BridgeSys()\n" +
      "for _k in dir(sys):\n" +
      "    try:\n        setattr(_s, _k, getattr(sys, _k))\n" +
      "    except Exception:\n        pass\n" +
      "_s.implementation = _BridgeImpl()\n" +
      "sys.modules['sys'] = _s\n" +
      "del _s, _k, _BridgeImpl, _BridgeSys\n";
  }
  return code;
}

function runFile(vmPath) {
  // Run a board script like the firmware does: errors are printed, not fatal.
  try { mp.FS.stat(vmPath); } catch (e) { return "ok"; }
  const src = Buffer.from(mp.FS.readFile(vmPath)).toString("utf8");
  running = true;
  try {
    mp.runPython("__name__ = '__main__'\n" + src);
  } catch (e) {
    if (e && e.name === "PythonError") {
      if (e.type === "SystemExit") return "exit";
      vmOut(Buffer.from(String(e.message).replace(/\r?\n/g, "\r\n")));
    } else {
      vmOut(Buffer.from("bridge: " + String(e) + "\r\n"));
    }
  } finally {
    running = false;
    flushOut();
  }
  return "ok";
}

async function boot(withBanner) {
  syncOut(mp);
  if (withBanner) send("MPY: soft reboot\r\n");
  // SystemExit from boot.py or main.py is a soft reset, as on a board.
  for (let resets = 0; ; resets++) {
    if (resets > 0) send("MPY: soft reboot\r\n");
    mp = await loadMicroPython({ heapsize: heap, linebuffer: false, stdout: vmOut, stderr: vmOut });
    copyIn(mp);
    installFakes(mp);
    watchWrites(mp);
    dirty = false;
    enforceFlash(mp);
    watchOps(mp);
    pinsPending = []; // (the new VM's pins start at pinLevels)
    mp.runPython(setupCode());
    let r = runFile("/boot.py");
    resetCause = 5; // SOFT_RESET from now on
    if (dropOut) { dropOut = false; }
    flushOut();
    tell("BOOTED");
    if (r === "ok" && mode === "friendly") r = runFile("/main.py");
    syncOut(mp);
    if (r !== "exit" || resets >= 50) break;
  }
  if (mode === "raw") {
    mute = true;
    mp.replInit();
    await mp.replProcessCharWithAsyncify(0x01);
    mute = false;
    send("raw REPL; CTRL-B to exit\r\n>");
  } else {
    mp.replInit();
  }
}

// ---- the input pump ------------------------------------------------------------
const inQueue = [];
let waiter = null;
let closed = false;
process.stdin.on("data", (d) => {
  for (const c of d) inQueue.push(c);
  if (waiter) { const w = waiter; waiter = null; w(); }
});
process.stdin.on("end", () => { closed = true; if (waiter) { const w = waiter; waiter = null; w(); } });

async function nextByte() {
  while (inQueue.length === 0) {
    if (closed) return -1;
    // Idle: the board's files go to the host folder (its flash).
    syncOut(mp);
    await new Promise((r) => { waiter = r; });
  }
  return inQueue.shift();
}

let rawLineLen = 0;
async function feed(c) {
  if (mode === "friendly") {
    if (c === 0x01) { mode = "raw"; rawLineLen = 0; }
  } else {
    if (c === 0x02) mode = "friendly";
    else if (c === 0x04 || c === 0x01) rawLineLen = 0;
    else rawLineLen++;
  }
  if (c === 0x03 && interruptFile) interrupted(); // seen here: not for a later sleep
  const ret = await mp.replProcessCharWithAsyncify(c);
  if (ret) await boot(true);
}

async function rawPasteSession() {
  // Host sent Ctrl-E 'A' 0x01 at an empty raw REPL line.
  const WINDOW = 256;
  send(Buffer.from([0x52, 0x01, WINDOW & 0xff, WINDOW >> 8]));
  const code = [];
  let sinceAck = 0;
  for (;;) {
    const c = await nextByte();
    if (c < 0) return;
    if (c === 0x04) break;
    if (c === 0x03) { interrupted(); send(Buffer.from([0x04])); return; } // Ctrl-C: the host gave up; drop the paste
    code.push(c);
    if (++sinceAck === WINDOW) { sinceAck = 0; send(Buffer.from([0x01])); }
  }
  send(Buffer.from([0x04]));
  swallowOK = 2;
  for (const c of code) await mp.replProcessCharWithAsyncify(c);
  await feed(0x04);
}

async function main() {
  dropOut = afterReset;
  await boot(false);
  for (;;) {
    const c = await nextByte();
    if (c < 0) break;
    if (mode === "raw" && rawLineLen === 0 && c === 0x05) {
      const a = await nextByte();
      const b = await nextByte();
      if (a === 0x41 && b === 0x01) {
        if (rawPaste) await rawPasteSession();
        else send(Buffer.from([0x52, 0x00]));
        continue;
      }
      // Not a raw-paste request: hand everything to the VM as it came.
      for (const x of [a, b]) if (x >= 0) await feed(x);
      continue;
    }
    await feed(c);
  }
  syncOut(mp);
  flushOut();
}

for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => { try { syncOut(mp); } catch (e) { log(String(e)); } process.exit(0); });
}
await main();
