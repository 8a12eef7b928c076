// chip_think.mjs: one run of host_tools/benches/chip_think.py on the RP2040 model
// (../shared/picobox, its README.md), through the board's boot path.
//
//   node chip_think.mjs --model WORK --flash IMG --code PY [--pull-ups 2,3,...] [--led 22]
//        [--prep PY] [--arm-pin 16] [--seq 2,2,2] [--taps 3] [--settle-ms 1200] [--hold-ms 120]
//        [--gap-ms 420] [--after-ms 2500] [--boot-ms 12000] [--max-ms 60000]
//
// 1. The model's board.mjs (from WORK, the writable copy chip_bench.prepare_model
//    makes) loads the MicroPython UF2 and IMG, the filesystem as `make deploy` lays it
//    (host_tools/link/flash_image.py), and powers on: the boot ROM, MicroPython,
//    boot.py, main.py, the stage, the app, as on a board.  The run waits (at most
//    --boot-ms of the chip's time) for the console's "main: confirmed": the firmware
//    started from the flash and the stage kept it.
// 2. Then into the raw REPL (Ctrl-C stops the app) and a soft reset there: MicroPython
//    runs boot.py again (the stage puts the slot on sys.path) but not main.py, and the
//    heap is the fresh one of a start.  (A second App built beside the remains of the
//    first, over the raw REPL without the reset, finds no room for its 2**12 table and
//    plays with 2**11: not the board that is measured.)  --prep PY runs there first
//    (what only has to be on the flash: the saved game), then a second soft reset, so
//    the script's heap carries nothing of it.
// 3. The script (--code) runs over the raw REPL, the firmware the slot's .mpy.  With
//    --arm-pin, the presses of --seq (GPIO low --hold-ms, --gap-ms apart, the first
//    --settle-ms after) and the run's end (--after-ms after the last release, or as
//    many presses as --taps would have made) are counted from the first rising edge
//    the script gives that pin, in the chip's own time; without, the run ends with the
//    script (at most --max-ms).
// The chip is stopped while the host writes (each exchange at the same instant of the
// chip's time, run after run): two runs of one image are the same up to a press.
// The WS2812 frames on the LED pin are decoded as a chain shows them (an LED past the
// end of a short frame keeps what it had: the firmware sends only up to the last pit
// it changed, Pixels.prefix_writes), and each press gives the first frame after it
// whose content changed, and the same after its release.  Written to stdout: the
// console (the script's output), the changed frames and the presses as lines a person
// reads, and a last line "RESULT {json}" for chip_think.py.
//
// The model's PIO is clocked in emulated time in this process, as chip_wave.mjs clocks
// it (each state machine at its divider's pulses, its delays taken), so the decoder
// reads the PIO chain's frames as it reads the bitstream's: the model's files, in
// ../shared and in WORK, are not touched.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const args = process.argv.slice(2);
const opt = { model: null, flash: null, code: null, prep: null, pullUps: [], led: 22, arm: null, seq: [],
  taps: null, settle: 1200, hold: 120, gap: 420, after: 2500, bootMs: 12000, maxMs: 60000 };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const list = (s) => s.split(',').filter(Boolean).map(Number);
  if (a === '--model') opt.model = args[++i];
  else if (a === '--flash') opt.flash = args[++i];
  else if (a === '--code') opt.code = fs.readFileSync(args[++i], 'utf8');
  else if (a === '--prep') opt.prep = fs.readFileSync(args[++i], 'utf8');
  else if (a === '--pull-ups') opt.pullUps = list(args[++i]);
  else if (a === '--led') opt.led = +args[++i];
  else if (a === '--arm-pin') opt.arm = +args[++i];
  else if (a === '--seq') opt.seq = list(args[++i]);
  else if (a === '--taps') opt.taps = +args[++i];
  else if (a === '--settle-ms') opt.settle = +args[++i];
  else if (a === '--hold-ms') opt.hold = +args[++i];
  else if (a === '--gap-ms') opt.gap = +args[++i];
  else if (a === '--after-ms') opt.after = +args[++i];
  else if (a === '--boot-ms') opt.bootMs = +args[++i];
  else if (a === '--max-ms') opt.maxMs = +args[++i];
  else fail('unknown argument ' + a);
}
if (!opt.model || !opt.flash || opt.code === null) fail('--model, --flash and --code are needed');
if (opt.taps === null) opt.taps = opt.seq.length;

function fail(why, extra = {}) {
  process.stdout.write('RESULT ' + JSON.stringify(Object.assign({ error: why }, extra)) + '\n');
  process.exit(2);
}

const modelUrl = (...p) => pathToFileURL(path.join(path.resolve(opt.model), ...p)).href;
const { Board } = await import(modelUrl('board.mjs'));
const { RPPIO, StateMachine } = await import(modelUrl('node_modules', 'rp2040js', 'dist', 'esm', 'index.js'));
const { clockPioInChipTime } = await import('./pio_clock.mjs');

// The PIO clocked in the chip's time (pio_clock.mjs): rp2040js alone runs it in the
// host's, and the PIO chain's WS2812 frames then have no times worth reading.
clockPioInChipTime(RPPIO, StateMachine);

if (!fs.existsSync(opt.flash)) fail('no flash image ' + opt.flash);
const b = new Board({ uf2: path.join(path.resolve(opt.model), 'firmware.uf2'), flashImage: opt.flash });
// Buttons released: the pads' pull-ups hold the inputs high (rp2040js applies no pull).
for (const n of opt.pullUps) b.pin(n).setInputValue(true);
const ms = (ns) => (ns / 1e6).toFixed(3);
const at = (nsFromNow, fn) => b.mcu.clock.createAlarm(fn).schedule(nsFromNow);

// --- the WS2812 chain on the LED pin ----------------------------------------------
const frames = []; // {t0, t1, nbits, lit, key}: key = the whole chain after the frame
const latched = [];
let cur = null, riseT = -1, lastFall = -1;
function closeFrame() {
  if (!cur) return;
  const n = cur.bits.length >> 3;
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (let k = 0; k < 8; k++) v = (v << 1) | cur.bits[8 * i + k];
    latched[i] = v;
  }
  let lit = 0;
  for (let i = 0; i + 2 < latched.length; i += 3) if (latched[i] || latched[i + 1] || latched[i + 2]) lit++;
  frames.push({ t0: cur.t0, t1: lastFall, nbits: cur.bits.length, lit, key: Buffer.from(latched).toString('hex') });
  cur = null;
}
b.pin(opt.led).addListener((value) => {
  const t = b.nanos;
  if (value === 1) {
    if (cur && lastFall >= 0 && t - lastFall > 50000) closeFrame(); // >50 us low: the reset
    if (!cur) cur = { t0: t, bits: [] };
    riseT = t;
  } else if (riseT >= 0 && cur) {
    cur.bits.push(t - riseT > 600 ? 1 : 0);
    lastFall = t;
    riseT = -1;
  }
});

// --- the console, and the runs between the host's moves -------------------------------
// The chip stops the moment what it wrote matches what the host waits for (in the
// serial callback, inside the emulator's loop), and the host writes while it is
// stopped: every exchange happens at the same instant of the chip's time in every run
// (rp2040js is deterministic), so two power-ons of one image run the same until a
// press.  (Waiting on the host's timers instead lets the idle chip's clock run on by
// however long the host takes: the think then starts seconds apart.)
let watch = null; // {pred, text, finish}
b.onOutput = (buf) => {
  const s = Buffer.from(buf).toString('latin1');
  if (watch) {
    watch.text += s;
    if (watch.pred(watch.text)) watch.finish(true);
  }
};
// Write `data` (the chip stopped), run until the chip's output since then satisfies
// `pred` or `limitMs` of the chip's time pass (or finish() is called); the chip is
// stopped again on return.  Resolves {ok, text}.
function step(pred, limitMs, data, powerOn = false) {
  return new Promise((resolve) => {
    const alarm = b.mcu.clock.createAlarm(() => w.finish(false));
    const w = { pred, text: '', finish: null };
    w.finish = (ok) => {
      if (watch !== w) return;
      watch = null;
      b.stop();
      alarm.cancel();
      resolve({ ok, text: w.text });
    };
    watch = w;
    alarm.schedule(limitMs * 1e6);
    if (data !== undefined) b.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (powerOn) b.start();
    else b.sim.execute();
  });
}
const RAW = 'raw REPL; CTRL-B to exit\r\n>';

// 1. power on, as a board starts
const boot = await step((t) => /main: confirmed|main: the new version failed|SAFE STATE|Traceback/.test(t),
  opt.bootMs, undefined, true);
const bootText = boot.text;
if (!boot.ok || !/main: confirmed/.test(bootText)) {
  const last = bootText.trim().split(/\r?\n/).pop() || 'no output';
  fail(`the deployed firmware did not start on the model in ${opt.bootMs} ms: ${last}`, { console: bootText });
}
const tConfirmed = b.nanos;

// 2. Ctrl-C (the app stops, main.py ends in the REPL), the raw REPL, and a soft reset
// there: boot.py (the stage) again, not main.py; with --prep, that script first (e.g.
// the game saved on the flash) and a second reset
let resetText = '';
async function expect(pred, limitMs, data, what) {
  const r = await step(pred, limitMs, data);
  resetText += r.text;
  if (!r.ok) fail(`the raw REPL did not answer after the boot (${what}): ${JSON.stringify(r.text.slice(-300))}`,
    { console: bootText });
  return r.text;
}
let r = await step((t) => t.endsWith('\n>>> '), 3000, '\x03');
if (!r.ok) r = await step((t) => t.endsWith('\n>>> '), 3000, '\x03'); // (a second Ctrl-C)
if (!r.ok) fail('the app did not stop at Ctrl-C: ' + JSON.stringify(r.text.slice(-300)), { console: bootText });
await expect((t) => t.endsWith(RAW), 3000, '\x01', 'Ctrl-A');
await expect((t) => t.endsWith(RAW), 20000, '\x04', 'soft reset');
if (opt.prep !== null) {
  await expect((t) => /\x04[\s\S]*\x04>$/.test(t), 60000, opt.prep + '\x04', 'the prep script');
  await expect((t) => t.endsWith(RAW), 20000, '\x04', 'soft reset');
}

// 3. the script, and the presses from its signal
const taps = [];
function scheduleTaps() {
  for (let k = 0; k < opt.seq.length; k++) {
    const tDown = (opt.settle + k * opt.gap) * 1e6;
    const pin = opt.seq[k];
    at(tDown, () => {
      b.pin(pin).setInputValue(false);
      taps[k] = { pin, down: b.nanos };
    });
    at(tDown + opt.hold * 1e6, () => {
      b.pin(pin).setInputValue(true);
      taps[k].up = b.nanos;
    });
  }
}
const tEndMs = opt.settle + Math.max(0, opt.taps - 1) * opt.gap + opt.hold + opt.after;
let armedAt = null;
if (opt.arm !== null) {
  b.pin(opt.arm).addListener((value) => {
    if (armedAt !== null || value !== 1) return;
    armedAt = b.nanos;
    scheduleTaps();
    at(tEndMs * 1e6, () => { if (watch) watch.finish(true); });
  });
}
const tUpload = b.nanos;
const h0 = Date.now();
// (raw REPL: "OK", the output, \x04, the error, \x04>: the script's end)
const run = await step((t) => /\x04[\s\S]*\x04>$/.test(t), opt.maxMs, opt.code + '\x04');
const script = run.text.replace(/^OK/, ''); // (the raw REPL's "OK": the script taken)
if (cur && lastFall >= 0) closeFrame();
const hostS = (Date.now() - h0) / 1000;

// --- the report -----------------------------------------------------------------------
const out = [];
out.push(bootText.replace(/\r/g, '').trimEnd());
out.push(`(power-on to "main: confirmed": ${ms(tConfirmed)} ms; raw REPL, soft reset: boot.py again${opt.prep !== null ? '; the prep script, soft reset' : ''})`);
out.push(resetText.replace(/\r/g, '').replace(/raw REPL; CTRL-B to exit\n>$/, '').trimEnd());
out.push(script.replace(/\r/g, '').replace(/\x04/g, '\n').trimEnd());
const t0 = armedAt !== null ? armedAt : tUpload;
const rel = (t) => ms(t - t0);
out.push(`==== ${frames.length} WS2812 frames on GP${opt.led}; t from ${armedAt !== null ? `the script's signal on GP${opt.arm}` : "the script's upload"} (${ms(t0)} ms after power-on); host ${hostS.toFixed(1)} s`);
let prevKey = null;
for (const f of frames) {
  if (f.t0 < t0 || f.key === prevKey) { prevKey = f.key; continue; }
  prevKey = f.key;
  out.push(`frame at t=${rel(f.t0)} ms  ${((f.t1 - f.t0) / 1e3).toFixed(0)} us on the wire, ${f.nbits} bits, ${f.lit} LEDs lit`);
}
const lastBefore = (t) => { let k = null; for (const f of frames) { if (f.t0 < t) k = f; else break; } return k; };
const firstChanged = (t) => {
  const before = lastBefore(t);
  return frames.find((f) => f.t0 >= t && (!before || f.key !== before.key));
};
const result = { armed: armedAt !== null, taps: [], frames: frames.length, host_s: hostS,
  confirmed_ms: tConfirmed / 1e6, boot: bootText, reset: resetText, console: script };
for (const [k, tp] of taps.entries()) {
  if (!tp) continue;
  const r = { pin: tp.pin, down_ms: (tp.down - t0) / 1e6, up_ms: tp.up === undefined ? null : (tp.up - t0) / 1e6 };
  out.push(`tap ${k}: GP${tp.pin} pressed at t=${rel(tp.down)} ms, released at t=${tp.up === undefined ? '-' : rel(tp.up)} ms`);
  const p = firstChanged(tp.down);
  if (p) {
    r.press_us = Math.round((p.t0 - tp.down) / 1e3);
    out.push(`  first changed frame after the press: +${r.press_us} us, ${p.lit} LEDs lit`);
  }
  if (tp.up !== undefined) {
    const u = firstChanged(tp.up);
    if (u) {
      r.release_us = Math.round((u.t0 - tp.up) / 1e3);
      out.push(`  first changed frame after the release: +${r.release_us} us, ${u.lit} LEDs lit`);
    }
  }
  result.taps.push(r);
}
if (opt.arm !== null && armedAt === null) out.push(`(no signal on GP${opt.arm}: no presses)`);
process.stdout.write(out.join('\n') + '\n');
process.stdout.write('RESULT ' + JSON.stringify(result) + '\n');
process.exit(0);
