// The glyph grid: one cell per glyph in file order, drawn only when it scrolls into view, so a font
// of thousands of glyphs opens at once.

import { drawThumb } from './outline.js';
import { others } from './presence.js';

export class GlyphGrid {
  constructor(client, host, onOpen) {
    this.client = client;
    this.onOpen = onOpen;
    this.el = document.createElement('div');
    this.el.className = 'grid';
    this.el.id = 'glyph-grid';
    host.replaceChildren(this.el);
    this.cells = new Map();          // name -> cell
    this.visible = new Set();
    this.observer = new IntersectionObserver(entries => {
      for (const en of entries) {
        const cell = en.target;
        if (en.isIntersecting) { this.visible.add(cell); if (!cell.drawn) this.draw(cell); }
        else this.visible.delete(cell);
      }
      this.drawnCount();
    }, { root: this.el, rootMargin: '200px' });
    this.el.addEventListener('click', e => {
      const cell = e.target.closest('.cell');
      if (cell) this.onOpen(cell.dataset.name);
    });
    this.refresh();
  }

  destroy() { this.observer.disconnect(); }

  refresh() {
    const glyphs = this.client.glyphs();
    this.info = this.client.fontInfo();
    const names = glyphs.map(g => g.name).join('\n');
    if (names !== this.names) {
      this.names = names;
      this.build(glyphs);
    } else {
      // a change in a glyph: the cells on screen are redrawn, the others when they show up
      for (const cell of this.cells.values()) cell.drawn = false;
      for (const cell of this.visible) this.draw(cell);
    }
    this.drawPresence();
  }

  build(glyphs) {
    this.observer.disconnect();
    this.cells.clear();
    this.visible.clear();
    const frag = document.createDocumentFragment();
    for (const g of glyphs) {
      const cell = document.createElement('div');
      cell.className = 'cell';
      cell.dataset.name = g.name;
      cell.dataset.id = g.id;
      cell.title = g.unicode >= 0 ? `${g.name} U+${g.unicode.toString(16).toUpperCase().padStart(4, '0')}` : g.name;
      const canvas = document.createElement('canvas');
      const label = document.createElement('span');
      label.className = 'name';
      label.textContent = g.name;
      cell.append(canvas, label);
      frag.append(cell);
      this.cells.set(g.name, cell);
    }
    this.el.replaceChildren(frag);
    for (const cell of this.cells.values()) this.observer.observe(cell);
  }

  draw(cell) {
    const g = this.client.glyph(cell.dataset.name);
    if (g) drawThumb(cell.firstChild, g, this.info);
    cell.drawn = true;
  }

  // for the benchmark and tests: how many cells have been drawn so far
  drawnCount() {
    let n = 0;
    for (const c of this.cells.values()) if (c.drawn) n++;
    this.el.dataset.drawn = n;
    return n;
  }

  drawPresence() {
    for (const cell of this.el.querySelectorAll('.cell.others')) {
      cell.classList.remove('others');
      cell.style.removeProperty('--who');
      delete cell.dataset.who;
    }
    const byId = new Map(Array.from(this.cells.values(), c => [c.dataset.id, c]));
    for (const p of others(this.client)) {
      for (const id of p.selection || []) {
        const cell = byId.get(String(id));
        if (!cell) continue;
        cell.classList.add('others');
        cell.style.setProperty('--who', p.colour);
        cell.dataset.who = p.name;
      }
    }
  }
}
