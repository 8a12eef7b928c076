// chip_board.mjs: a board on the RP2040 model (../shared/picobox), powered on from a
// flash image and driven line by line from Python (host_tools/benches/chip_board.py).
//
//   node chip_board.mjs --model DIR [--uf2 FILE] [--flash IMG] [--pull-ups 2,3,...]
//                       [--watch-alloc]
//
// The model's board.mjs loads the MicroPython UF2 (the model's own by default, or a
// `make image` UF2 that carries the filesystem too) and the flash image, and starts
// the chip at power-on: the boot ROM, MicroPython, boot.py, main.py, as a real board.
// Commands (one JSON object a line on stdin; one JSON answer a line on stdout):
//   {"cmd": "run", "ms": N, "until": REGEX}   run N ms of the chip's time (or until the
//        console written during the run matches REGEX); answers the console text of
//        the run, the chip's time, the newest complete WS2812 frame on the LED pin
//   {"cmd": "pin", "pin": N, "value": 0|1}   drive a GPIO input (a button: 0 pressed)
//   {"cmd": "mux", "select": [pins], "adc": CH, "values": [16 volts]}  an analog
//        multiplexer: the ADC channel reads values[select's number] (hall sensors)
//   {"cmd": "set", "index": K, "value": V}   one mux input's volts
//   {"cmd": "exec", "code": PY, "soft_reset": B}   stop the app (Ctrl-C) and run PY over
//        the raw REPL: the firmware as the stage started it (its slot on sys.path);
//        soft_reset: after a soft reset there (boot.py again, no main.py: a whole heap);
//        answers out, err
//   {"cmd": "allocs", "reset": B}   (--watch-alloc) the allocations since the last
//        reset: how many, the largest (bytes), how many of each size of 1 KB and more
//   {"cmd": "wave"}   the LED pin's pulse widths so far (ns): T0H, T1H, T0L, T1L, gaps
//   {"cmd": "save", "path": P}   the filesystem region of the flash into P
//   {"cmd": "quit"}
import readline from 'readline';
import fs from 'fs';
import path from 'path';

const args = process.argv.slice(2);
const opt = { model: null, uf2: null, flash: null, pullUps: [], led: 22 };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--model') opt.model = args[++i];
  else if (a === '--uf2') opt.uf2 = args[++i];
  else if (a === '--flash') opt.flash = args[++i];
  else if (a === '--pull-ups') opt.pullUps = args[++i].split(',').filter(Boolean).map(Number);
  else if (a === '--led') opt.led = +args[++i];
  else if (a === '--watch-alloc') opt.watchAlloc = true;
  else {
    process.stdout.write(JSON.stringify({ error: 'unknown argument ' + a }) + '\n');
    process.exit(2);
  }
}
const { Board, FS_OFFSET, FS_BYTES } = await import(path.resolve(opt.model, 'board.mjs'));
const uf2 = opt.uf2 || path.join(opt.model, 'firmware.uf2');
const b = new Board({ uf2, flashImage: opt.flash });
// Buttons released: the pads' pull-ups hold the inputs high (rp2040js applies no pull).
for (const n of opt.pullUps) b.pin(n).setInputValue(true);

// --- the WS2812 chain on the LED pin: frames and the waveform ---------------------
let bits = null, frameBytes = null, frames = 0, riseT = -1, lastFall = -1, lastBit = -1;
const wave = { t0h: [1e12, 0], t1h: [1e12, 0], t0l: [1e12, 0], t1l: [1e12, 0], gap: [1e12, 0], bits: 0 };
const span = (k, v) => { if (v < wave[k][0]) wave[k][0] = v; if (v > wave[k][1]) wave[k][1] = v; };
function closeFrame() {
  if (!bits) return;
  const out = Buffer.alloc(bits.length >> 3);
  for (let i = 0; i + 8 <= bits.length; i += 8) {
    let v = 0;
    for (let k = 0; k < 8; k++) v = (v << 1) | bits[i + k];
    out[i >> 3] = v;
  }
  // A short frame (the firmware sends the chain only up to the last pit it changed)
  // updates the first LEDs; the rest keep what they latched before, as on a real chain.
  if (frameBytes && frameBytes.length > out.length) {
    const whole = Buffer.from(frameBytes);
    out.copy(whole, 0);
    frameBytes = whole;
  } else frameBytes = out;
  frames++;
  bits = null;
  lastBit = -1;
}
b.pin(opt.led).addListener((value) => {
  const t = b.nanos;
  if (value === 1) {
    if (bits && lastFall >= 0 && t - lastFall > 50000) {
      span('gap', t - lastFall);
      closeFrame();
    } else if (bits && lastFall >= 0 && lastBit >= 0) span(lastBit ? 't1l' : 't0l', t - lastFall);
    if (!bits) bits = [];
    riseT = t;
  } else if (riseT >= 0 && bits) {
    const w = t - riseT;
    lastBit = w > 600 ? 1 : 0;
    span(lastBit ? 't1h' : 't0h', w);
    wave.bits++;
    bits.push(lastBit);
    lastFall = t;
    riseT = -1;
  }
});

// --- an analog multiplexer in front of an ADC channel (pico_hall) ------------------
let mux = null;
function muxUpdate() {
  if (!mux) return;
  let k = 0;
  mux.select.forEach((p, i) => { if (b.pin(p).value) k |= 1 << i; });
  const volts = mux.values[k] || 0;
  b.mcu.adc.channelValues[mux.adc] = Math.max(0, Math.min(4095, Math.round((volts / 3.3) * 4095)));
}

// --- allocations: every gc_alloc / gc_realloc the firmware makes (--watch-alloc) -----
// (the entry of each in the firmware's symbols, syms.txt beside the model: the size
// asked is in r0 for gc_alloc, r1 for gc_realloc; a compare per instruction)
const allocs = { count: 0, max: 0, big: {} };
if (opt.watchAlloc) {
  const syms = fs.readFileSync(path.join(opt.model, 'syms.txt'), 'utf8').split('\n');
  const at = (name) => {
    const l = syms.find((x) => x.endsWith(' ' + name));
    if (!l) throw new Error('no symbol ' + name + ' in syms.txt');
    return parseInt(l.split(' ')[0], 16) & ~1;
  };
  const GC_ALLOC = at('gc_alloc'), GC_REALLOC = at('gc_realloc');
  const core = b.mcu.core;
  const step = core.executeInstruction.bind(core);
  core.executeInstruction = function () {
    const pc = this.PC;
    if (pc === GC_ALLOC || pc === GC_REALLOC) {
      const n = (pc === GC_ALLOC ? this.registers[0] : this.registers[1]) >>> 0;
      allocs.count++;
      if (n > allocs.max) allocs.max = n;
      if (n >= 1024) {
        const k = String(Math.floor(n / 1024));
        allocs.big[k] = (allocs.big[k] || 0) + 1;
      }
    }
    return step();
  };
}

let consoleText = '';
b.onOutput = (buf) => { consoleText += Buffer.from(buf).toString('latin1'); };
b.start();

function runFor(ms, until) {
  return new Promise((resolve) => {
    const start = consoleText.length;
    const re = until ? new RegExp(until) : null;
    let done = false;
    const finish = (matched) => {
      if (done) return;
      done = true;
      b.stop();
      clearInterval(poll);
      resolve(matched);
    };
    const alarm = b.mcu.clock.createAlarm(() => finish(false));
    alarm.schedule(ms * 1e6);
    const poll = setInterval(() => {
      if (re && re.test(consoleText.slice(start))) {
        alarm.cancel();
        finish(true);
      }
    }, 20);
    b.sim.execute();
  });
}

const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
let consoleSent = 0;
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  let c;
  try {
    c = JSON.parse(line);
  } catch (e) {
    say({ error: 'not JSON: ' + line.slice(0, 80) });
    continue;
  }
  try {
    if (c.cmd === 'run') {
      const matched = await runFor(c.ms, c.until);
      if (bits && lastFall >= 0 && b.nanos - lastFall > 50000) closeFrame();
      const text = consoleText.slice(consoleSent);
      consoleSent = consoleText.length;
      say({ t_ms: b.nanos / 1e6, matched, console: text, frames, frame: frameBytes ? frameBytes.toString('hex') : null });
    } else if (c.cmd === 'pin') {
      b.pin(c.pin).setInputValue(!!c.value);
      muxUpdate();
      say({ ok: true });
    } else if (c.cmd === 'mux') {
      mux = { select: c.select, adc: c.adc, values: c.values.slice() };
      for (const p of c.select) b.pin(p).addListener(muxUpdate);
      muxUpdate();
      say({ ok: true });
    } else if (c.cmd === 'set') {
      mux.values[c.index] = c.value;
      muxUpdate();
      say({ ok: true });
    } else if (c.cmd === 'exec') {
      // Ctrl-C stops the running app (main.py ends in the REPL: the modules the
      // stage put on sys.path stay), then the code runs over the raw REPL
      const saved = b.onOutput;
      b.sim.execute();
      try {
        if (c.soft_reset) {
          // a soft reset in the raw REPL: boot.py runs (the stage puts the slot on
          // sys.path), main.py does not (ports/rp2/main.c): a whole heap, no app
          if (!b.inRaw) await b.enterRaw();
          const back = b.waitFor((t) => t.endsWith('raw REPL; CTRL-B to exit\r\n>'), 120000);
          b.write('\x04');
          await back;
        }
        const r = await b.exec(c.code, { timeoutMs: c.timeout_ms || 3600000 });
        say({ out: r.out, err: r.err, t_ms: b.nanos / 1e6 });
      } finally {
        b.stop();
        b.onOutput = saved;
      }
    } else if (c.cmd === 'allocs') {
      say({ allocs: JSON.parse(JSON.stringify(allocs)) });
      if (c.reset) { allocs.count = 0; allocs.max = 0; allocs.big = {}; }
    } else if (c.cmd === 'wave') {
      say({ wave });
    } else if (c.cmd === 'save') {
      fs.writeFileSync(c.path, b.mcu.flash.subarray(FS_OFFSET, FS_OFFSET + FS_BYTES));
      say({ ok: true });
    } else if (c.cmd === 'quit') {
      say({ ok: true });
      process.exit(0);
    } else say({ error: 'unknown command ' + c.cmd });
  } catch (e) {
    say({ error: String(e && e.stack || e) });
  }
}
process.exit(0);
