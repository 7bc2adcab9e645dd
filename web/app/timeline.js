// The animation view's timeline: one row per layer (its bar from in to out point, dragged to shift
// the layer) and one per animated property (its keyframes as diamonds, each dragged to another
// frame). A drag is one transaction, made at release; a collaborator's change that lands during a
// drag is shown after it, so the drag is not pulled from under the mouse.

export class Timeline {
  // on: {seek(frame), moveKey(address, t, newT), shiftLayer(address, dt), select(layer or null)};
  // a layer's address is its place in the list ("[0]"), its id the model's ("site:counter")
  constructor(host, on) {
    this.on = on;
    this.model = null;
    this.waiting = null; // a model that came during a drag
    this.drag = null;
    this.selected = null; // the selected layer's id (its address changes when layers move)
    this.el = document.createElement('div');
    this.el.className = 'timeline';
    this.el.id = 'timeline';
    this.ruler = document.createElement('div');
    this.ruler.className = 'tl-row tl-ruler';
    this.rows = document.createElement('div');
    this.rows.className = 'tl-rows';
    this.el.append(this.ruler, this.rows);
    this.rulerTrack = this.rulerRow();
    this.playhead = document.createElement('div');
    this.playhead.className = 'tl-playhead';
    host.append(this.el);
    this.el.addEventListener('pointerdown', e => this.down(e));
    this.el.addEventListener('pointermove', e => this.move(e));
    this.el.addEventListener('pointerup', e => this.up(e));
    this.el.addEventListener('pointercancel', () => this.cancel());
  }

  update(model) {
    if (this.drag) { this.waiting = model; return; }
    this.model = model;
    this.build();
  }

  pct(f) { const m = this.model; return ((f - m.ip) / (m.op - m.ip)) * 100; }

  // the frame under a client x, on a row's track
  frameAt(track, clientX) {
    const r = track.getBoundingClientRect(), m = this.model;
    const f = m.ip + ((clientX - r.left) / Math.max(r.width, 1)) * (m.op - m.ip);
    return Math.round(Math.min(Math.max(f, m.ip), m.op));
  }

  row(cls, label, address) {
    const row = document.createElement('div');
    row.className = 'tl-row ' + cls;
    if (address) row.dataset.address = address;
    const name = document.createElement('div');
    name.className = 'tl-label';
    name.textContent = label;
    name.title = label;
    const track = document.createElement('div');
    track.className = 'tl-track';
    row.append(name, track);
    return [row, track];
  }

  build() {
    const m = this.model;
    const step = tickStep(m.op - m.ip, m.fr);
    const ticks = [];
    for (let f = Math.ceil(m.ip / step) * step; f <= m.op; f += step) {
      const t = document.createElement('span');
      t.className = 'tl-tick';
      t.style.left = this.pct(f) + '%';
      t.textContent = String(f);
      ticks.push(t);
    }
    this.rulerTrack.replaceChildren(...ticks, this.playhead);
    const rows = [];
    for (const layer of m.layers) {
      const [row, track] = this.row('tl-layer', layer.name, layer.address);
      if (layer.id) row.dataset.ensId = layer.id;
      row.classList.toggle('selected', !!layer.id && layer.id === this.selected);
      const bar = document.createElement('div');
      bar.className = 'tl-bar';
      bar.style.left = this.pct(Math.max(layer.ip, m.ip)) + '%';
      bar.style.width = Math.max(this.pct(Math.min(layer.op, m.op)) - this.pct(Math.max(layer.ip, m.ip)), 0.5) + '%';
      bar.title = `${layer.name}: frames ${layer.ip} to ${layer.op} (drag to shift)`;
      track.append(bar);
      rows.push(row);
      for (const p of layer.props) {
        const [prow, ptrack] = this.row('tl-prop', p.label, p.address);
        prow.dataset.layer = layer.address;
        for (const t of p.keys) {
          const k = document.createElement('span');
          k.className = 'tl-key';
          k.dataset.t = String(t);
          k.style.left = this.pct(t + layer.st) + '%';
          k.title = `${p.label}: keyframe at ${t + layer.st} (drag to move)`;
          ptrack.append(k);
        }
        rows.push(prow);
      }
    }
    if (!m.layers.length) {
      const empty = document.createElement('p');
      empty.className = 'tl-empty';
      empty.textContent = 'This animation has no layers.';
      rows.push(empty);
    }
    this.rows.replaceChildren(...rows);
    this.setFrame(this.frame ?? m.ip);
  }

  rulerRow() {
    const name = document.createElement('div');
    name.className = 'tl-label';
    name.textContent = 'frame';
    const track = document.createElement('div');
    track.className = 'tl-track';
    this.ruler.append(name, track);
    return track;
  }

  setFrame(f) {
    this.frame = f;
    if (this.playhead && this.model) this.playhead.style.left = this.pct(f) + '%';
  }

  layerOf(address) { return this.model.layers.find(l => l.address === address); }

  down(e) {
    if (e.button !== 0 || !this.model) return;
    const key = e.target.closest('.tl-key'), bar = e.target.closest('.tl-bar');
    const row = e.target.closest('.tl-row'), track = e.target.closest('.tl-track');
    if (key || bar) {
      const layer = this.layerOf(key ? row.dataset.layer : row.dataset.address);
      this.drag = { el: key || bar, key: !!key, row, track, layer, x0: e.clientX,
                    from: key ? Number(key.dataset.t) + layer.st : this.frameAt(track, e.clientX),
                    left: (key || bar).style.left, to: null };
      this.drag.to = this.drag.from;
      this.el.setPointerCapture(e.pointerId);
      this.select(layer);
      e.preventDefault();
      return;
    }
    if (track) { this.on.seek(this.frameAt(track, e.clientX)); return; }
    if (row && row.classList.contains('tl-layer')) {
      const layer = this.layerOf(row.dataset.address);
      this.select(layer && layer.id !== this.selected ? layer : null);
    }
  }

  move(e) {
    const d = this.drag;
    if (!d) return;
    const m = this.model, r = d.track.getBoundingClientRect();
    if (d.key) {
      d.to = this.frameAt(d.track, e.clientX);
      d.el.style.left = this.pct(d.to) + '%';
    } else {
      d.to = d.from + Math.round(((e.clientX - d.x0) / Math.max(r.width, 1)) * (m.op - m.ip));
      d.el.style.transform = `translateX(${e.clientX - d.x0}px)`;
    }
    d.el.classList.add('dragging');
  }

  up() { this.endDrag(true); }
  cancel() { this.endDrag(false); }

  // The dragged element goes back to where the document has it; a release that moved it makes the
  // edit, whose change then redraws the timeline. A change that came during the drag shows now.
  endDrag(commit) {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    d.el.classList.remove('dragging');
    d.el.style.transform = '';
    d.el.style.left = d.left;
    if (commit && d.to !== d.from) {
      if (d.key) this.on.moveKey(d.row.dataset.address, d.from - d.layer.st, d.to - d.layer.st);
      else this.on.shiftLayer(d.layer.address, d.to - d.from);
    }
    if (this.waiting) { const w = this.waiting; this.waiting = null; this.update(w); }
  }

  select(layer) {
    this.selected = layer ? layer.id : null;
    for (const r of this.rows.querySelectorAll('.tl-layer'))
      r.classList.toggle('selected', !!this.selected && r.dataset.ensId === this.selected);
    this.on.select(layer);
  }

  // others: [{site, name, colour, selection: [ids]}]; a layer selected by someone is marked in
  // their colour, with their name
  drawPresence(others) {
    for (const tag of this.rows.querySelectorAll('.tl-who')) tag.remove();
    for (const r of this.rows.querySelectorAll('.tl-layer')) r.style.boxShadow = '';
    for (const p of others) {
      for (const id of p.selection || []) {
        const r = this.rows.querySelector(`.tl-layer[data-ens-id="${CSS.escape(String(id))}"]`);
        if (!r) continue;
        r.style.boxShadow = `inset 3px 0 0 ${p.colour}`;
        const tag = document.createElement('span');
        tag.className = 'tl-who';
        tag.dataset.site = String(p.site);
        tag.style.background = p.colour;
        tag.textContent = p.name;
        r.firstChild.append(tag);
      }
    }
  }
}

// Ruler ticks about every 60 px of a 600 px track: whole seconds when they fit.
function tickStep(frames, fr) {
  const want = frames / 10;
  for (const s of [1, 2, 5, 10, Math.round(fr / 2) || 1, Math.round(fr) || 1, 2 * Math.round(fr), 5 * Math.round(fr), 10 * Math.round(fr)])
    if (s >= want) return s;
  return Math.ceil(want);
}
