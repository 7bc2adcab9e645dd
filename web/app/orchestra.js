// The orchestra: a short Web Audio tone for each applied transaction, so a session can be heard.
// Pitch comes from the kind of edit, timbre (oscillator type) from the author's site. Off by default.

const PITCH = { move: 60, delete: 48, style: 64, order: 67, width: 55, point: 72, other: 62 };
const TIMBRES = ['sine', 'triangle', 'square', 'sawtooth'];

function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export class Orchestra {
  constructor() { this.on = false; this.ctx = null; this.played = 0; this.last = null; }

  // Called from the toggle's click: browsers let an AudioContext start only after a gesture.
  setOn(on) {
    this.on = on;
    if (on && !this.ctx) this.ctx = new AudioContext();
    if (this.ctx) (on ? this.ctx.resume() : this.ctx.suspend()).catch(() => {});
  }

  timbreFor(site) { return TIMBRES[hash(String(site)) % TIMBRES.length]; }
  pitchFor(kind) { return PITCH[kind] ?? PITCH.other; }

  play(change) {
    if (!this.on || !this.ctx) return;
    const ctx = this.ctx, t = ctx.currentTime;
    const midi = this.pitchFor(change.kind) + (change.local ? 0 : 12);
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = this.timbreFor(change.site);
    osc.frequency.value = 440 * Math.pow(2, (midi - 69) / 12);
    // a soft attack and decay: clicks at 10 edits a second are unpleasant
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.12, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.18);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.2);
    this.played++;
    this.last = { kind: change.kind, type: osc.type, frequency: osc.frequency.value };
  }
}
