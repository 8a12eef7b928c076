// pio_clock.mjs: the RP2040 model's PIO clocked in the chip's time (chip_board.py loads
// it through chip_wave.mjs, chip_think.mjs imports it).  rp2040js 1.4.1 runs a PIO 1,000
// instructions per turn of the host's event loop, ignores each state machine's clock
// divider and runs an instruction's delay cycles ([n]) in no time, so a PIO waveform on
// the model as shipped has no times worth reading.  Here each enabled state machine
// gets a clock tick at its divider's pulses: the RP2040's fractional divider (CLKDIV
// INT + FRAC/256) gives tick k at system cycle t0 + floor(k * (INT*256 + FRAC) / 256),
// so a tick is INT or INT+1 cycles (8 ns each, 125 MHz) after the last, FRAC/256 of them
// INT+1.  An instruction takes its tick, its delay the next n ticks (a stalled one: its
// ticks until the stall ends, then its delay).  Side-set, pins and FIFOs are rp2040js's
// own.  A machine stalled on an empty TX FIFO is not ticked (it cannot change) until
// the FIFO is written; its divider's phase runs on meanwhile.  Changes this process's
// rp2040js classes only (the model's files are not touched).
//
// clockPioInChipTime(RPPIO, StateMachine) -> divs: the dividers the state machines were
// given ({pio, sm, int, frac}), as they are set.
export function clockPioInChipTime(RPPIO, StateMachine) {
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

  return divs;
}
