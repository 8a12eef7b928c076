// chip_wave.mjs: preloaded into chip_board.mjs (`node --import chip_wave.mjs`, set by
// host_tools/benches/chip_wave.py through NODE_OPTIONS) to measure the LED chain's
// waveform on the RP2040 model.  Two things, both in this process only (the model's
// files, ../shared and build/picobox, are not touched):
//
// 1. The PIO clocked in emulated time.  rp2040js 1.4.1 runs a PIO 1,000 instructions per
//    turn of the host's event loop, ignores each state machine's clock divider and runs
//    an instruction's delay cycles ([n]) in no time, so a PIO waveform on the model as
//    shipped has no times worth reading.  Here each enabled state machine gets a clock
//    tick at its divider's pulses: the RP2040's fractional divider (CLKDIV INT + FRAC/256)
//    gives tick k at system cycle t0 + floor(k * (INT*256 + FRAC) / 256), so a tick is
//    INT or INT+1 cycles (8 ns each, 125 MHz) after the last, FRAC/256 of them INT+1.
//    An instruction takes its tick, its delay the next n ticks (a stalled one: its ticks
//    until the stall ends, then its delay).  Side-set, pins and FIFOs are rp2040js's own.
//    A machine stalled on an empty TX FIFO is not ticked (it cannot change) until the
//    FIFO is written; its divider's phase runs on meanwhile.
// 2. The LED pin's edges, recorded at the chip's time: per frame (a low over 50 us ends
//    one, as chip_board.mjs reads them) its first rise, last fall and bits, the chain's
//    contents after it (a WS2812 chain keeps the LEDs a short frame does not reach), and
//    every pulse width seen per kind (counts per ns value).  Written as JSON to
//    $CHIP_WAVE_OUT when the process exits, with the state machines' CLKDIV values.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const argv = process.argv;
const at = argv.indexOf('--model');
if (at > 0 && /chip_board\.mjs$/.test(argv[1] || '')) {
  const model = fs.realpathSync(path.resolve(argv[at + 1]));
  const ledAt = argv.indexOf('--led');
  const LED = ledAt > 0 ? +argv[ledAt + 1] : 22;
  const url = pathToFileURL(path.join(model, 'node_modules', 'rp2040js', 'dist', 'esm', 'index.js')).href;
  const { RPPIO, StateMachine, GPIOPin } = await import(url);
  const NS = 8; // a system cycle at 125 MHz
  const WAIT_TX = new Set([3, 5]); // WaitType.txFIFO, WaitType.Out (rp2040js pio.js)
  const divOf = (m) => (m.clockDivInt || 65536) * 256 + m.clockDivFrac;
  const nextCycle = (w) => w.t0 + Math.floor((w.k * w.div) / 256);
  const idle = (m) => m.waiting && WAIT_TX.has(m.waitType) && m.txFIFO.empty && m.wv.delay === 0;
  const divs = [];

  function schedule(pio) {
    const now = Math.ceil(pio.rp2040.clock.nanos / NS);
    let best = Infinity;
    for (const m of pio.machines) {
      if (!m.enabled || !m.wv || idle(m)) continue;
      const w = m.wv;
      if (nextCycle(w) < now) w.k = Math.ceil(((now - w.t0) * 256) / w.div); // (it idled)
      best = Math.min(best, nextCycle(w));
    }
    if (best === Infinity) pio.wvAlarm.cancel();
    else pio.wvAlarm.schedule(best * NS - pio.rp2040.clock.nanos);
  }

  function kick(pio) {
    if (!pio.wvAlarm) pio.wvAlarm = pio.rp2040.clock.createAlarm(() => tick(pio));
    const now = Math.ceil(pio.rp2040.clock.nanos / NS);
    for (const m of pio.machines) {
      if (!m.enabled) {
        m.wv = null;
        continue;
      }
      const div = divOf(m);
      if (!m.wv || m.wv.div !== div) {
        m.wv = { t0: now, k: 0, div, delay: 0, seen: m.cycles };
        divs.push({ pio: pio.index, sm: m.index, int: m.clockDivInt, frac: m.clockDivFrac });
      }
    }
    schedule(pio);
  }

  function tickMachine(m) {
    const w = m.wv;
    if (m.cycles !== w.seen) {
      // a FIFO write ended the stall between ticks: the instruction completes on this
      // tick, its delay follows
      w.delay = m.cycles - w.seen;
      w.seen = m.cycles;
      return;
    }
    if (w.delay > 0) {
      w.delay--;
      return;
    }
    const wasWaiting = m.waiting;
    m.step();
    const d = m.cycles - w.seen;
    w.seen = m.cycles;
    if (m.waiting) w.delay = 0; // stalled
    else if (wasWaiting) w.delay = d; // the stall ended: its delay
    else w.delay = Math.max(0, d - 1); // its cycle, then its delay
  }

  function tick(pio) {
    const now = Math.round(pio.rp2040.clock.nanos / NS);
    for (const m of pio.machines) {
      if (m.enabled && m.wv && !idle(m) && nextCycle(m.wv) === now) {
        tickMachine(m);
        m.wv.k++;
      }
    }
    pio.checkChangedPins();
    schedule(pio);
  }

  RPPIO.prototype.run = function () {
    kick(this);
  };
  RPPIO.prototype.stop = function () {
    for (const m of this.machines) m.enabled = false;
    this.stopped = true;
    if (this.wvAlarm) this.wvAlarm.cancel();
  };
  const writeUint32 = RPPIO.prototype.writeUint32;
  RPPIO.prototype.writeUint32 = function (offset, value) {
    writeUint32.call(this, offset, value);
    kick(this);
  };
  const writeFIFO = StateMachine.prototype.writeFIFO;
  StateMachine.prototype.writeFIFO = function (value) {
    writeFIFO.call(this, value);
    if (this.pio.wvAlarm || this.enabled) kick(this.pio);
  };

  // --- the LED pin's edges ----------------------------------------------------------
  const widths = { t0h: {}, t1h: {}, t0l: {}, t1l: {}, gap: {} };
  const count = (k, v) => { widths[k][v] = (widths[k][v] || 0) + 1; };
  const frames = [];
  const chain = Buffer.alloc(4096);
  let chainLen = 0, lastChain = '';
  let bits = null, first = -1, rise = -1, fall = -1, lastBit = -1;
  function closeFrame() {
    const n = bits.length >> 3;
    for (let i = 0; i < n; i++) {
      let v = 0;
      for (let k = 0; k < 8; k++) v = (v << 1) | bits[i * 8 + k];
      chain[i] = v;
    }
    chainLen = Math.max(chainLen, n);
    const hex = chain.subarray(0, chainLen).toString('hex');
    frames.push({ t_ns: first, span_ns: fall - first, bits: bits.length,
                  chain: hex === lastChain ? null : hex });
    lastChain = hex;
    bits = null;
    lastBit = -1;
  }
  let clockOf = null;
  function edge(pin, value) {
    clockOf = pin.rp2040.clock;
    const t = clockOf.nanos;
    if (value) {
      if (bits && fall >= 0 && t - fall > 50000) {
        count('gap', t - fall);
        closeFrame();
      } else if (bits && lastBit >= 0) count(lastBit ? 't1l' : 't0l', t - fall);
      if (!bits) {
        bits = [];
        first = t;
      }
      rise = t;
    } else if (rise >= 0 && bits) {
      const w = t - rise;
      lastBit = w > 600 ? 1 : 0;
      count(lastBit ? 't1h' : 't0h', w);
      bits.push(lastBit);
      fall = t;
      rise = -1;
    }
  }
  const check = GPIOPin.prototype.checkForUpdates;
  GPIOPin.prototype.checkForUpdates = function () {
    const before = this.lastValue === 1; // (GPIOPinState: High is 1; inputs read low)
    check.call(this);
    if (this.index === LED && (this.lastValue === 1) !== before) edge(this, before ? 0 : 1);
  };

  process.on('exit', () => {
    if (!process.env.CHIP_WAVE_OUT) return;
    // (a frame still on the wire when the run stopped is left out, as chip_board.mjs
    // leaves it)
    if (bits && bits.length && clockOf && clockOf.nanos - fall > 50000) closeFrame();
    fs.writeFileSync(process.env.CHIP_WAVE_OUT, JSON.stringify({ widths, frames, divs }));
  });
}
