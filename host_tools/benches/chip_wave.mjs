// chip_wave.mjs: preloaded into chip_board.mjs (`node --import chip_wave.mjs`, set by
// host_tools/benches/chip_wave.py through NODE_OPTIONS) to measure the LED chain's
// waveform on the RP2040 model.  Two things, both in this process only (the model's
// files, ../shared and build/picobox, are not touched):
//
// 1. The PIO clocked in the chip's time (pio_clock.mjs has how).
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
  const { clockPioInChipTime } = await import('./pio_clock.mjs');
  const divs = clockPioInChipTime(RPPIO, StateMachine);

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
