// The drawing view: the session's SVG rendered by the browser, select, drag (one transaction at
// mouse-up), delete, raise/lower, fill colour; others' selections and pointers on top. A change
// patches the drawing in the page (patch.js) rather than replacing it.

import { sanitizeSvg } from './sanitize.js';
import { patchTree } from './patch.js';
import { selectionBox, cursor, others, onDocument } from './presence.js';

export class DrawingView {
  constructor(client, host, onError) {
    this.client = client;
    this.onError = onError;
    this.selected = [];
    this.drag = null;
    this.dirty = false;
    this.lastPointer = 0;
    this.text = null;               // the document's text the page shows
    this.renders = { full: 0, patched: 0, same: 0 };

    const bar = document.createElement('div');
    bar.className = 'toolbar';
    bar.innerHTML = `<button data-act="raise" title="Bring forward">Raise</button>
      <button data-act="lower" title="Send backward">Lower</button>
      <button data-act="delete" title="Delete (Del)">Delete</button>
      <label>Fill <input type="color" id="fill-colour" value="#3366cc"></label>
      <span class="sel-info" id="sel-info"></span>`;
    bar.addEventListener('click', e => this.onTool(e.target.dataset?.act));
    this.colour = bar.querySelector('#fill-colour');
    this.colour.addEventListener('change', () => this.setFill(this.colour.value));
    this.info = bar.querySelector('#sel-info');

    this.wrap = document.createElement('div');
    this.wrap.className = 'drawing-wrap';
    this.stage = document.createElement('div');
    this.stage.className = 'drawing';
    this.stage.id = 'drawing';
    this.overlay = document.createElement('div');
    this.overlay.className = 'overlay';
    this.wrap.append(this.stage);
    host.replaceChildren(bar, this.wrap);

    this.stage.addEventListener('mousedown', e => this.down(e));
    window.addEventListener('mousemove', this.moveHandler = e => this.move(e));
    window.addEventListener('mouseup', this.upHandler = e => this.up(e));
    this.render();
  }

  destroy() {
    window.removeEventListener('mousemove', this.moveHandler);
    window.removeEventListener('mouseup', this.upHandler);
  }

  get svg() { return this.stage.querySelector(':scope > svg'); }

  // The document as the client now holds it: the elements whose text changed are updated in place,
  // the others keep their nodes. During a drag the dragged elements keep their previewed transform
  // (a collaborator's new transform becomes the one the preview adds to). Where the new copy cannot
  // be matched to the page's (a new root, repeated ids) the drawing is replaced whole, and during a
  // drag that waits for mouse-up, so the preview is not thrown away.
  render() {
    this.dirty = false;
    const text = this.client.svgText(), ids = this.client.svgIds(), key = ids.join(',');
    if (this.svg && text === this.text && key === this.idsKey) { this.renders.same++; this.drawPresence(); return; }
    let root;
    try {
      root = this.freshCopy(text, ids);
    } catch (err) {
      this.onError(err.message);
      return;
    }
    const live = this.svg;
    if (live && patchTree(live, root, this.drag ? (el, name, value) => this.dragAttr(el, name, value) : null)) {
      this.renders.patched++;
    } else if (this.drag) {
      this.dirty = true;
      return;
    } else {
      this.stage.replaceChildren(root, this.overlay);
      this.renders.full++;
    }
    this.text = text;
    this.idsKey = key;
    const existing = new Set(ids);
    const kept = this.selected.filter(id => existing.has(id));
    if (kept.length !== this.selected.length) this.select(kept);
    this.drawPresence();
  }

  // The document as a new, detached <svg> for the page (sanitised, sized to the view); throws with
  // the reason when it cannot be shown.
  freshCopy(text = this.client.svgText(), ids = this.client.svgIds()) {
    const root = sanitizeSvg(text, document, ids);
    fitView(root);
    return root;
  }

  // A dragged element's transform is the preview's: a new one from the document is kept as the
  // transform the preview adds to, and restored at mouse-up.
  dragAttr(el, name, value) {
    if (name !== 'transform') return false;
    const d = this.drag, item = d && d.els.find(([e]) => e === el);
    if (!item) return false;
    item[1] = value === undefined ? null : value;
    el.setAttribute('transform', `translate(${d.dx} ${d.dy})` + (item[1] ? ' ' + item[1] : ''));
    return true;
  }

  byId(id) { return this.stage.querySelector(`[data-ens-id="${CSS.escape(id)}"]`); }

  select(ids) {
    this.selected = ids;
    this.client.setSelection(ids);
    this.info.textContent = ids.length ? `${ids.length} selected` : '';
    const el = ids.length ? this.byId(ids[0]) : null;
    const fill = el && /^#[0-9a-f]{6}$/i.test(el.getAttribute('fill') || '') ? el.getAttribute('fill') : null;
    if (fill) this.colour.value = fill;
    this.drawPresence();
  }

  // document (root user unit) coordinates of a mouse event
  docPoint(e) {
    const svg = this.svg, m = svg && svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  down(e) {
    if (e.button !== 0) return;
    const hit = e.target.closest && e.target.closest('[data-ens-id]');
    // the root <svg> carries an id too; clicking the background clears the selection
    if (!hit || hit === this.svg) { this.select([]); return; }
    const id = hit.getAttribute('data-ens-id');
    let ids = this.selected;
    if (e.shiftKey) ids = ids.includes(id) ? ids.filter(x => x !== id) : [...ids, id];
    else if (!ids.includes(id)) ids = [id];
    this.select(ids);
    const start = this.docPoint(e);
    if (!start || !ids.length) return;
    this.drag = { start, dx: 0, dy: 0,
                  els: ids.map(i => this.byId(i)).filter(Boolean).map(el => [el, el.getAttribute('transform')]) };
    e.preventDefault();
  }

  move(e) {
    const p = this.docPoint(e);
    if (!p) return;
    const now = performance.now();
    if (now - this.lastPointer > 40 && e.target && this.stage.contains(e.target)) {
      this.lastPointer = now;
      this.client.setPointer(p.x, p.y, '0');
    }
    if (!this.drag) return;
    const d = this.drag;
    d.dx = p.x - d.start.x;
    d.dy = p.y - d.start.y;
    for (const [el, t] of d.els)
      el.setAttribute('transform', `translate(${d.dx} ${d.dy})` + (t ? ' ' + t : ''));
    this.drawPresence();
  }

  up() {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    for (const [el, t] of d.els) t === null ? el.removeAttribute('transform') : el.setAttribute('transform', t);
    // a click without a real move is a selection, not an edit; the move is drawn at once (the
    // client has applied it), so the element never shows its old place in between
    const moved = Math.hypot(d.dx, d.dy) > 0.01 && this.selected.length;
    if (moved) this.client.svgTranslate(this.selected, round(d.dx), round(d.dy));
    if (moved || this.dirty) this.render();
    else this.drawPresence();
  }

  onTool(act) {
    if (!act || !this.selected.length) return;
    if (act === 'delete') this.deleteSelected();
    else if (act === 'raise') this.selected.forEach(id => this.client.svgRaise(id));
    else if (act === 'lower') this.selected.forEach(id => this.client.svgLower(id));
  }

  deleteSelected() {
    if (!this.selected.length) return;
    const ids = this.selected;
    this.select([]);
    this.client.svgDelete(ids);
  }

  setFill(colour) {
    if (this.selected.length) this.client.svgSetColour(this.selected, 'fill', colour);
  }

  key(e) {
    if ((e.key === 'Delete' || e.key === 'Backspace') && this.selected.length) {
      e.preventDefault();
      this.deleteSelected();
      return true;
    }
    if (e.key === 'Escape') { this.select([]); return true; }
    return false;
  }

  drawPresence() {
    const svg = this.svg;
    if (!svg) return;
    const origin = this.stage.getBoundingClientRect();
    const boxes = [];
    for (const id of this.selected) {
      const el = this.byId(id);
      if (el) boxes.push(selectionBox(el.getBoundingClientRect(), origin, '#1a73e8', '', true));
    }
    const m = svg.getScreenCTM();
    for (const p of others(this.client)) {
      for (const id of p.selection || []) {
        const el = this.byId(id);
        if (el) {
          const b = selectionBox(el.getBoundingClientRect(), origin, p.colour, p.name, false);
          b.dataset.site = p.site;
          boxes.push(b);
        }
      }
      if (p.pointer && onDocument(p.pointer) && m && Number.isFinite(p.pointer.x)) {
        const s = new DOMPoint(p.pointer.x, p.pointer.y).matrixTransform(m);
        const c = cursor(s.x - origin.left, s.y - origin.top, p.colour, p.name);
        c.dataset.site = p.site;
        boxes.push(c);
      }
    }
    this.overlay.replaceChildren(...boxes);
  }
}

// A drawing sized by width and height alone would not scale with the view: give the page's copy
// the viewBox those imply (the document itself is not changed).
function fitView(svg) {
  if (svg.hasAttribute('viewBox')) return;
  const w = parseFloat(svg.getAttribute('width')), h = parseFloat(svg.getAttribute('height'));
  if (w > 0 && h > 0) svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
}

function round(v) { return Math.round(v * 100) / 100; }
