// The glyph editor: one glyph's outline on a canvas with its on-curve points, control points and
// handles, and the metrics lines (baseline, ascent, descent, origin, advance width). Dragging points
// or the width line is one transaction at mouse-up; double-click adds a point; Delete removes.
// A composite's references (Agrave's A and grave) are drawn muted behind its own outline and are not
// points one can pick, as in FontForge: they change when the glyphs they name change.

import { traceGlyph } from './outline.js';
import { others } from './presence.js';

const HIT = 7;   // px
export const REF_FILL = 'rgba(110, 124, 150, 0.22)', REF_STROKE = '#8a94a8';   // references, muted

export class GlyphEditor {
  constructor(client, host, name, onBack) {
    this.client = client;
    this.name = name;
    this.selected = [];             // [[contour, index]...]
    this.drag = null;
    this.lastPointer = 0;

    const bar = document.createElement('div');
    bar.className = 'toolbar';
    bar.innerHTML = `<button data-act="back">← All glyphs</button> <b class="glyph-name"></b>
      <span>width <span class="glyph-width"></span></span> <span class="glyph-refs"></span>
      <span class="hint">drag points or the width line · double-click adds a point · Del removes</span>`;
    bar.querySelector('.glyph-name').textContent = name;
    this.widthEl = bar.querySelector('.glyph-width');
    this.refsEl = bar.querySelector('.glyph-refs');
    bar.querySelector('[data-act=back]').addEventListener('click', onBack);
    this.el = document.createElement('div');
    this.el.className = 'editor';
    this.canvas = document.createElement('canvas');
    this.canvas.id = 'glyph-canvas';
    this.el.append(this.canvas);
    host.replaceChildren(bar, this.el);

    this.canvas.addEventListener('mousedown', e => this.down(e));
    this.canvas.addEventListener('dblclick', e => this.dblclick(e));
    window.addEventListener('mousemove', this.moveHandler = e => this.move(e));
    window.addEventListener('mouseup', this.upHandler = () => this.up());
    window.addEventListener('resize', this.resizeHandler = () => this.render());
    this.render();
  }

  destroy() {
    window.removeEventListener('mousemove', this.moveHandler);
    window.removeEventListener('mouseup', this.upHandler);
    window.removeEventListener('resize', this.resizeHandler);
  }

  // font units <-> canvas pixels: the em box with a margin, y up, grown to hold what reaches beyond
  // it (an accent above a capital's ascent, a mark left of the origin)
  layout() {
    const r = this.canvas.getBoundingClientRect();
    const e = this.ext;
    const s = Math.min((r.height - 60) / (e.top - e.bottom), (r.width - 80) / Math.max(e.right - e.left, (e.top - e.bottom) * 0.6));
    const ox = (r.width - (e.left + e.right) * s) / 2, base = 30 + e.top * s;
    return { s, ox, base, w: r.width, h: r.height, rect: r };
  }

  // The box the view shows, from the glyph as the document has it (not the drag's preview, so the
  // view holds still while one drags)
  extent() {
    const info = this.info, g = this.glyph;
    const e = { top: info.ascent, bottom: -info.descent, left: 0, right: g.width };
    if (!(e.top > e.bottom)) { e.top = info.em || 1000; e.bottom = 0; }
    for (const pts of [...g.contours, ...(this.refs ? this.refs.contours : [])])
      for (const p of pts) {
        e.top = Math.max(e.top, p.y); e.bottom = Math.min(e.bottom, p.y);
        e.left = Math.min(e.left, p.x); e.right = Math.max(e.right, p.x);
      }
    return e;
  }
  toPx(x, y) { const L = this.L; return [L.ox + x * L.s, L.base - y * L.s]; }
  toFont(px, py) { const L = this.L; return [(px - L.ox) / L.s, (L.base - py) / L.s]; }

  // A remote change during a drag waits for mouse-up.
  render() {
    if (this.drag) { this.dirty = true; return; }
    this.dirty = false;
    const g = this.client.glyph(this.name);
    if (!g) { this.glyph = null; this.paint(); return; }
    this.glyph = g;
    this.refs = (g.refs || []).length ? this.client.glyphOutline(this.name, { refsOnly: true }) : null;
    this.refsEl.textContent = (g.refs || []).length ? 'references ' + g.refs.map(r => r.glyph).join(', ') : '';
    this.info = this.client.fontInfo();
    this.ext = this.extent();
    this.selected = this.selected.filter(([c, i]) => g.contours[c] && g.contours[c][i]);
    this.widthEl.textContent = g.width;
    this.paint();
  }

  // positions with the drag's preview applied
  points() {
    const d = this.drag, g = this.glyph;
    if (!d || d.kind !== 'points') return g.contours;
    const sel = new Set(this.selected.map(([c, i]) => c + ':' + i));
    return g.contours.map((pts, c) => pts.map((p, i) =>
      sel.has(c + ':' + i) ? { ...p, x: p.x + d.dx, y: p.y + d.dy } : p));
  }
  width() { const d = this.drag; return this.glyph.width + (d && d.kind === 'width' ? d.dx : 0); }

  paint() {
    const dpr = window.devicePixelRatio || 1, r = this.canvas.getBoundingClientRect();
    this.canvas.width = Math.round(r.width * dpr);
    this.canvas.height = Math.round(r.height * dpr);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, r.width, r.height);
    if (!this.glyph) {
      ctx.fillStyle = '#b00020';
      ctx.fillText(`${this.name} is no longer in the font`, 20, 30);
      return;
    }
    this.L = this.layout();
    const L = this.L, info = this.info, wd = this.width();
    const hline = (y, label, colour) => {
      const py = this.toPx(0, y)[1];
      ctx.strokeStyle = colour; ctx.beginPath(); ctx.moveTo(0, py); ctx.lineTo(L.w, py); ctx.stroke();
      ctx.fillStyle = colour; ctx.fillText(label, 4, py - 3);
    };
    ctx.lineWidth = 1;
    ctx.font = '11px system-ui, sans-serif';
    hline(0, 'baseline', '#888');
    hline(info.ascent, `ascent ${info.ascent}`, '#aac');
    hline(-info.descent, `descent ${-info.descent}`, '#aac');
    for (const [x, label] of [[0, ''], [wd, `width ${Math.round(wd)}`]]) {
      const px = this.toPx(x, 0)[0];
      ctx.strokeStyle = x ? '#c63' : '#888';
      ctx.beginPath(); ctx.moveTo(px, 0); ctx.lineTo(px, L.h); ctx.stroke();
      if (label) { ctx.fillStyle = '#c63'; ctx.fillText(label, px + 4, 14); }
    }

    // the references' outlines, muted, behind the glyph's own
    if (this.refs && this.refs.contours.length) {
      ctx.beginPath();
      traceGlyph(ctx, this.refs.contours, (x, y) => this.toPx(x, y));
      ctx.fillStyle = REF_FILL;
      ctx.fill('nonzero');
      ctx.strokeStyle = REF_STROKE;
      ctx.stroke();
    }

    const contours = this.points();
    ctx.beginPath();
    traceGlyph(ctx, contours, (x, y) => this.toPx(x, y));
    ctx.fillStyle = '#0001';
    ctx.fill('nonzero');
    ctx.strokeStyle = '#222';
    ctx.stroke();

    // handles: each control point joined to its on-curve neighbour
    ctx.strokeStyle = '#999';
    ctx.beginPath();
    for (const pts of contours) {
      pts.forEach((p, i) => {
        if (p.on) return;
        const prev = pts[(i - 1 + pts.length) % pts.length], next = pts[(i + 1) % pts.length];
        const a = this.toPx(p.x, p.y);
        for (const q of [prev, next]) if (q.on) { const b = this.toPx(q.x, q.y); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); }
      });
    }
    ctx.stroke();
    const sel = new Set(this.selected.map(([c, i]) => c + ':' + i));
    contours.forEach((pts, c) => pts.forEach((p, i) => {
      const [x, y] = this.toPx(p.x, p.y), picked = sel.has(c + ':' + i);
      ctx.fillStyle = picked ? '#1a73e8' : (p.on ? '#fff' : '#ddd');
      ctx.strokeStyle = picked ? '#1a73e8' : '#333';
      ctx.beginPath();
      if (p.on) ctx.rect(x - 3.5, y - 3.5, 7, 7); else ctx.arc(x, y, 3, 0, 2 * Math.PI);
      ctx.fill(); ctx.stroke();
    }));

    // others' pointers in this glyph
    for (const p of others(this.client)) {
      if (!p.pointer || String(p.pointer.ctx) !== String(this.glyph.id)) continue;
      const [x, y] = this.toPx(p.pointer.x, p.pointer.y);
      ctx.fillStyle = p.colour;
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x, y + 14); ctx.lineTo(x + 10, y + 10); ctx.closePath(); ctx.fill();
      ctx.fillText(p.name, x + 10, y + 22);
    }
  }

  at(e) { const r = this.canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }

  hitPoint(px, py) {
    // of points on top of each other (a contour's closing point, a handle on its point) the first wins
    let best = null, bestD = HIT + 0.01;
    this.glyph.contours.forEach((pts, c) => pts.forEach((p, i) => {
      const [x, y] = this.toPx(p.x, p.y), d = Math.hypot(x - px, y - py);
      if (d < bestD) { bestD = d; best = [c, i]; }
    }));
    return best;
  }

  down(e) {
    if (e.button !== 0 || !this.glyph) return;
    const [px, py] = this.at(e);
    const hit = this.hitPoint(px, py);
    if (hit) {
      const key = hit.join(':');
      const has = this.selected.some(s => s.join(':') === key);
      if (e.shiftKey) this.selected = has ? this.selected.filter(s => s.join(':') !== key) : [...this.selected, hit];
      else if (!has) this.selected = [hit];
      this.drag = { kind: 'points', x0: px, y0: py, dx: 0, dy: 0 };
    } else if (Math.abs(px - this.toPx(this.glyph.width, 0)[0]) <= HIT) {
      this.drag = { kind: 'width', x0: px, y0: py, dx: 0, dy: 0 };
    } else {
      this.selected = [];
    }
    this.client.setSelection([this.glyph.id]);
    this.paint();
    e.preventDefault();
  }

  move(e) {
    if (!this.glyph || !this.L) return;
    const [px, py] = this.at(e);
    const now = performance.now();
    if (now - this.lastPointer > 40 && e.target === this.canvas) {
      this.lastPointer = now;
      const [fx, fy] = this.toFont(px, py);
      this.client.setPointer(fx, fy, this.glyph.id);
    }
    const d = this.drag;
    if (!d) return;
    d.dx = Math.round((px - d.x0) / this.L.s);
    d.dy = d.kind === 'points' ? Math.round(-(py - d.y0) / this.L.s) : 0;
    this.paint();
  }

  up() {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    if (d.kind === 'points' && (d.dx || d.dy) && this.selected.length)
      this.client.glyphMovePoints(this.name, this.selected, d.dx, d.dy);
    else if (d.kind === 'width' && d.dx)
      this.client.glyphSetWidth(this.name, Math.max(0, this.glyph.width + d.dx));
    this.render();
  }

  // A new on-curve point on the nearest segment between two consecutive points.
  dblclick(e) {
    if (!this.glyph) return;
    const [px, py] = this.at(e);
    let best = null, bestD = 12;
    this.glyph.contours.forEach((pts, c) => pts.forEach((p, i) => {
      const q = pts[(i + 1) % pts.length];
      const d = segDist(px, py, this.toPx(p.x, p.y), this.toPx(q.x, q.y));
      if (d < bestD) { bestD = d; best = [c, i + 1]; }
    }));
    if (!best) return;
    const [fx, fy] = this.toFont(px, py);
    this.client.glyphAddPoint(this.name, best[0], best[1], Math.round(fx), Math.round(fy));
    this.selected = [best];
    this.render();
  }

  key(e) {
    if ((e.key === 'Delete' || e.key === 'Backspace') && this.selected.length) {
      e.preventDefault();
      // highest index first, so the indices still to remove stay valid
      const order = [...this.selected].sort((a, b) => b[0] - a[0] || b[1] - a[1]);
      this.selected = [];
      for (const [c, i] of order) this.client.glyphRemovePoint(this.name, c, i);
      this.render();
      return true;
    }
    if (e.key === 'Escape') { this.selected = []; this.paint(); return true; }
    return false;
  }
}

function segDist(px, py, a, b) {
  const vx = b[0] - a[0], vy = b[1] - a[1], len = vx * vx + vy * vy;
  const t = len ? Math.max(0, Math.min(1, ((px - a[0]) * vx + (py - a[1]) * vy) / len)) : 0;
  return Math.hypot(px - (a[0] + t * vx), py - (a[1] + t * vy));
}
