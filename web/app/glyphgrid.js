// The glyph grid: one cell per glyph in file order. Only the rows in view (and a few around them)
// exist in the DOM, each cell drawn when it is created, so a font of thousands of glyphs opens at once.

import { drawThumb } from './outline.js';
import { others } from './presence.js';

const CELL_W = 76, CELL_H = 94, PAD = 8, SPARE_ROWS = 2;

export class GlyphGrid {
  constructor(client, host, onOpen) {
    this.client = client;
    this.onOpen = onOpen;
    this.el = document.createElement('div');
    this.el.className = 'grid';
    this.el.id = 'glyph-grid';
    this.inner = document.createElement('div');
    this.inner.className = 'grid-inner';
    this.el.append(this.inner);
    host.replaceChildren(this.el);
    this.cells = new Map();          // index -> cell element
    this.drawn = 0;
    this.el.addEventListener('scroll', () => this.layout());
    window.addEventListener('resize', this.resizeHandler = () => this.layout(true));
    this.el.addEventListener('click', e => {
      const cell = e.target.closest('.cell');
      if (cell) this.onOpen(cell.dataset.name);
    });
    this.refresh();
  }

  destroy() { window.removeEventListener('resize', this.resizeHandler); }

  refresh() {
    const glyphs = this.client.glyphs();
    this.info = this.client.fontInfo();
    const names = glyphs.map(g => g.name).join('\n');
    this.glyphs = glyphs;
    this.el.dataset.count = glyphs.length;
    if (names !== this.names) {
      this.names = names;
      this.clear();
    } else {
      // a change in some glyph: the cells in view are redrawn
      for (const [i, cell] of this.cells) this.fill(cell, glyphs[i]);
    }
    this.layout();
  }

  clear() {
    this.inner.replaceChildren();
    this.cells.clear();
  }

  // Creates the cells of the rows in view, drops the others.
  layout(resized = false) {
    const w = this.el.clientWidth || 800, h = this.el.clientHeight || 600;
    const cols = Math.max(1, Math.floor((w - 2 * PAD) / CELL_W));
    if (cols !== this.cols || resized) { this.cols = cols; this.clear(); }
    const n = this.glyphs.length, rows = Math.ceil(n / cols);
    this.inner.style.height = `${rows * CELL_H + 2 * PAD}px`;
    const top = Math.max(0, Math.floor(this.el.scrollTop / CELL_H) - SPARE_ROWS);
    const bottom = Math.min(rows, Math.ceil((this.el.scrollTop + h) / CELL_H) + SPARE_ROWS);
    const from = top * cols, to = Math.min(n, bottom * cols);
    for (const [i, cell] of this.cells) if (i < from || i >= to) { cell.remove(); this.cells.delete(i); }
    const frag = document.createDocumentFragment(), fresh = [];
    for (let i = from; i < to; i++) {
      if (this.cells.has(i)) continue;
      const cell = this.make(i);
      this.cells.set(i, cell);
      frag.append(cell);
      fresh.push(i);
    }
    this.inner.append(frag);
    for (const i of fresh) this.fill(this.cells.get(i), this.glyphs[i]);
    this.el.dataset.drawn = this.drawn;
    this.drawPresence();
  }

  make(i) {
    const cell = document.createElement('div');
    cell.className = 'cell';
    cell.style.left = `${PAD + (i % this.cols) * CELL_W}px`;
    cell.style.top = `${PAD + Math.floor(i / this.cols) * CELL_H}px`;
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 64;
    const label = document.createElement('span');
    label.className = 'name';
    cell.append(canvas, label);
    return cell;
  }

  // A cell shows the glyph as drawn, its references' outlines included (a composite such as Agrave
  // is its base and accent); its canvas is drawn again only when that outline changed, so a change
  // to A redraws A and the composites that use it, not the rest of the rows in view.
  fill(cell, g) {
    cell.dataset.name = g.name;
    cell.dataset.id = g.id;
    cell.title = g.unicode >= 0 ? `${g.name} U+${g.unicode.toString(16).toUpperCase().padStart(4, '0')}` : g.name;
    cell.lastChild.textContent = g.name;
    const outline = this.client.glyphOutline(g.name);
    const key = outline ? JSON.stringify([outline.width, outline.contours, this.info]) : '';
    if (key === cell.drawnKey) return;
    cell.drawnKey = key;
    if (outline) drawThumb(cell.firstChild, outline, this.info);
    cell.dataset.draws = (+cell.dataset.draws || 0) + 1;
    this.drawn++;
  }

  // Scrolls the grid so that NAME's cell exists and is in view; returns the cell or null.
  reveal(name) {
    const i = this.glyphs.findIndex(g => g.name === name);
    if (i < 0) return null;
    this.el.scrollTop = Math.max(0, Math.floor(i / this.cols) * CELL_H - CELL_H);
    this.layout();
    return this.cells.get(i) || null;
  }

  drawPresence() {
    const who = new Map();
    for (const p of others(this.client)) for (const id of p.selection || []) who.set(String(id), p);
    for (const cell of this.cells.values()) {
      const p = who.get(cell.dataset.id);
      cell.classList.toggle('others', !!p);
      if (p) { cell.style.setProperty('--who', p.colour); cell.dataset.who = p.name; }
      else { cell.style.removeProperty('--who'); delete cell.dataset.who; }
    }
  }
}
