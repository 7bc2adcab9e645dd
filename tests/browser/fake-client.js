// A scripted stand-in for web/ensemble-client.js, served by web_ui.mjs in its place: it keeps a
// small drawing or font in plain JS, applies the UI's calls to it and records each one, so the
// test can check what a gesture asked of the client (the real client is tested by web_session).

const DRAWING = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 120" data-ens-id="1:1" onload="window.pwned=1">
<script>window.pwned = 2</script>
<rect data-ens-id="1:2" x="10" y="10" width="60" height="40" fill="#cc3333"/>
<circle data-ens-id="1:3" cx="120" cy="40" r="25" fill="#3366cc" onclick="window.pwned=3"/>
<a data-ens-id="1:5" href="javascript:window.pwned=4"><rect data-ens-id="1:6" x="150" y="80" width="30" height="20" fill="#999"/></a>
<path data-ens-id="1:4" d="M20 100 L100 70 L180 110" fill="none" stroke="#228833" stroke-width="4"/>
</svg>`;

const FONT = {
  info: { ascent: 800, descent: 200, em: 1000 },
  glyphs: [
    { id: '1:10', name: 'square', unicode: 0x25a1, width: 600,
      contours: [[{ x: 100, y: 0, on: true }, { x: 500, y: 0, on: true }, { x: 500, y: 400, on: true }, { x: 100, y: 400, on: true }]] },
    { id: '1:11', name: 'O', unicode: 0x4f, width: 700,
      contours: [[{ x: 350, y: 0, on: true }, { x: 550, y: 0, on: false }, { x: 650, y: 150, on: false }, { x: 650, y: 350, on: true },
                  { x: 650, y: 550, on: false }, { x: 550, y: 700, on: false }, { x: 350, y: 700, on: true },
                  { x: 150, y: 700, on: false }, { x: 50, y: 550, on: false }, { x: 50, y: 350, on: true },
                  { x: 50, y: 150, on: false }, { x: 150, y: 0, on: false }]] },
    { id: '1:12', name: 'acute', unicode: 0xb4, width: 300,
      contours: [[{ x: 100, y: 0, on: true }, { x: 200, y: 0, on: true }, { x: 300, y: 130, on: true }, { x: 200, y: 130, on: true }]] },
    // a composite: no contours of its own, O and the acute above it
    { id: '1:13', name: 'Oacute', unicode: 0xd3, width: 700, contours: [],
      refs: [{ glyph: 'O', id: '1:11', ref: '1:14', transform: [1, 0, 0, 1, 0, 0] },
             { glyph: 'acute', id: '1:12', ref: '1:15', transform: [1, 0, 0, 1, 200, 660] }] },
  ],
};

// #fontjson=URL: a font as {info, glyphs} JSON instead of the two built-in glyphs
export async function loadEnsemble(base) {
  const h = new URLSearchParams(location.hash.slice(1)), url = h.get('fontjson'), many = +h.get('many') || 0;
  if (url) return { base, font: await (await fetch(url)).json() };
  // #svgurl=URL: that drawing, each element given an id as the real client does
  const svgUrl = h.get('svgurl');
  if (svgUrl) {
    const d = new DOMParser().parseFromString(await (await fetch(svgUrl)).text(), 'image/svg+xml');
    let k = 1;
    for (const el of [d.documentElement, ...d.documentElement.querySelectorAll('*')]) el.setAttribute('data-ens-id', `1:${k++}`);
    return { base, font: null, svg: new XMLSerializer().serializeToString(d) };
  }
  // #many=N: N glyphs, the built-in O's outline under the names g0 .. gN-1
  if (many) return { base, font: { info: FONT.info, glyphs: Array.from({ length: many }, (_, i) =>
    ({ ...FONT.glyphs[1], id: `1:${100 + i}`, name: `g${i}`, unicode: -1 })) } };
  return { base, font: null };
}

export class EnsembleClient {
  constructor(mod, opts) {
    this.opts = opts;
    this.state = 'connecting';
    this.calls = [];
    this.cbs = { state: [], change: [], presence: [], dropped: [], rejected: [] };
    this.docKind = new URLSearchParams(location.hash.slice(1)).get('fake') || 'svg';
    this.svg = mod.svg || DRAWING;
    this.font = mod.font || JSON.parse(JSON.stringify(FONT));
    this.people = [];
    this.undoResult = { done: true, skipped: 0, note: '' };
    window.fakeClient = this;
  }
  connect() { this.calls.push(['connect', this.opts.url, this.opts.token]); }
  close() {}
  onstate(cb) { this.cbs.state.push(cb); }
  onchange(cb) { this.cbs.change.push(cb); }
  onpresence(cb) { this.cbs.presence.push(cb); }
  ondropped(cb) { this.cbs.dropped.push(cb); }
  onrejected(cb) { this.cbs.rejected.push(cb); }

  // driven by the test
  setState(s) { this.state = s; this.cbs.state.forEach(cb => cb(s)); }
  setPeople(p) { this.people = p; this.cbs.presence.forEach(cb => cb()); }
  changed(ch) { this.cbs.change.forEach(cb => cb({ local: false, site: '2', label: '', kind: 'other', ...ch })); }

  kind() { return this.state === 'connecting' ? null : this.docKind; }
  docHash() { return '0123456789abcdef'; }
  seq() { return 1; }
  pending() { return 0; }
  site() { return '1'; }
  presence() { return [{ site: '1', name: this.opts.name, colour: this.opts.colour, selection: [], pointer: null }, ...this.people]; }
  setSelection(ids) { this.calls.push(['setSelection', ids]); }
  setPointer(x, y, ctx) { this.lastPointer = [x, y, ctx]; }
  cutFor(ms) { this.calls.push(['cutFor', ms]); }
  undo() { this.calls.push(['undo']); return this.undoResult; }
  redo() { this.calls.push(['redo']); return { done: false, skipped: 0, note: '' }; }

  svgText() { return this.svg; }
  svgIds() {
    const d = new DOMParser().parseFromString(this.svg, 'image/svg+xml');
    return [d.documentElement, ...d.documentElement.querySelectorAll('*')].map(e => e.getAttribute('data-ens-id'));
  }
  edit(name, ...args) { this.calls.push([name, ...args]); this.changed({ local: true, site: '1', kind: 'other' }); }
  svgTranslate(ids, dx, dy) { this.edit('svgTranslate', ids, dx, dy); }
  svgDelete(ids) {
    for (const id of ids) this.svg = this.svg.replace(new RegExp(`<[a-z]+ data-ens-id="${id}"[^>]*/>`), '');
    this.edit('svgDelete', ids);
  }
  svgRaise(id) { this.edit('svgRaise', id); }
  svgLower(id) { this.edit('svgLower', id); }
  svgSetColour(ids, what, c) { this.edit('svgSetColour', ids, what, c); }

  glyphs() { return this.font.glyphs.map(({ id, name, unicode, width }) => ({ id, name, unicode, width })); }
  fontInfo() { return this.font.info; }
  glyph(name) { const g = this.font.glyphs.find(x => x.name === name); return g ? JSON.parse(JSON.stringify(g)) : null; }
  // the glyph as drawn, references followed (the real one is the library's: ens_glyph_outline_get)
  glyphOutline(name, { refsOnly = false } = {}) {
    const top = this.g(name);
    if (!top) return null;
    const out = { width: top.width, contours: [], glyphs: [], cut: false };
    const walk = (g, m, depth, own) => {
      if (!out.glyphs.includes(g.id)) out.glyphs.push(g.id);
      if (own) for (const c of g.contours) out.contours.push(c.map(p => ({ x: m[0] * p.x + m[2] * p.y + m[4], y: m[1] * p.x + m[3] * p.y + m[5], on: p.on })));
      for (const r of g.refs || []) {
        const t = this.g(r.glyph), a = r.transform;
        if (!t || depth > 8) { out.cut = true; continue; }
        walk(t, [a[0] * m[0] + a[1] * m[2], a[0] * m[1] + a[1] * m[3], a[2] * m[0] + a[3] * m[2], a[2] * m[1] + a[3] * m[3],
                 a[4] * m[0] + a[5] * m[2] + m[4], a[4] * m[1] + a[5] * m[3] + m[5]], depth + 1, true);
      }
    };
    walk(top, [1, 0, 0, 1, 0, 0], 0, !refsOnly);
    return out;
  }
  g(name) { return this.font.glyphs.find(x => x.name === name); }
  glyphMovePoints(name, pts, dx, dy) {
    for (const [c, i] of pts) { const p = this.g(name).contours[c][i]; p.x += dx; p.y += dy; }
    this.edit('glyphMovePoints', name, pts, dx, dy);
  }
  glyphSetWidth(name, w) { this.g(name).width = w; this.edit('glyphSetWidth', name, w); }
  glyphAddPoint(name, c, i, x, y) { this.g(name).contours[c].splice(i, 0, { x, y, on: true }); this.edit('glyphAddPoint', name, c, i, x, y); }
  glyphRemovePoint(name, c, i) { this.g(name).contours[c].splice(i, 1); this.edit('glyphRemovePoint', name, c, i); }
}
