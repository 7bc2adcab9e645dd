// The font view: the glyph grid, and the glyph editor when a cell is opened (#glyph=NAME in the URL
// keeps the open glyph across reloads).

import { GlyphGrid } from './glyphgrid.js';
import { GlyphEditor } from './glyphedit.js';

export class FontView {
  constructor(client, host) {
    this.client = client;
    this.host = host;
    this.child = null;
    const open = new URLSearchParams(location.hash.slice(1)).get('glyph');
    if (open && client.glyph(open)) this.open(open); else this.showGrid();
  }

  showGrid() {
    this.child?.destroy();
    this.child = new GlyphGrid(this.client, this.host, name => this.open(name));
    this.client.setSelection([]);
    setHashParam('glyph', null);
  }

  open(name) {
    this.child?.destroy();
    this.child = new GlyphEditor(this.client, this.host, name, () => this.showGrid());
    const g = this.client.glyph(name);
    if (g) this.client.setSelection([g.id]);
    setHashParam('glyph', name);
  }

  render() { this.child instanceof GlyphGrid ? this.child.refresh() : this.child.render(); }
  drawPresence() { this.child instanceof GlyphGrid ? this.child.drawPresence() : this.child.paint(); }
  key(e) { return this.child.key ? this.child.key(e) : false; }
  destroy() { this.child?.destroy(); }
}

// The fragment also carries the token: other parameters are kept as they are.
export function setHashParam(key, value) {
  const p = new URLSearchParams(location.hash.slice(1));
  if (value === null) p.delete(key); else p.set(key, value);
  const h = p.toString();
  history.replaceState(null, '', location.pathname + location.search + (h ? '#' + h : ''));
}
