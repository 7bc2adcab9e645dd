// The browser's session client: a thin layer over the library's own C
// client compiled to WebAssembly (src/wasm/, docs/web.md). It holds the
// WebSocket; everything else (pending queue, collaborators' changes put
// beneath pending ones, resend after a reconnect, the user's own undo that
// never overwrites a newer change) is the C client's.
//
// Ids cross as "site:counter" strings: 64-bit ids do not fit a number.

const AUTH = 14; // docs/protocol.md, "WebSocket": [14, token]

// MessagePack of [14, token]: fixarray of 2, positive fixint 14, str.
function authMessage(token) {
  const t = new TextEncoder().encode(token);
  let head;
  if (t.length < 32) head = [0x92, AUTH, 0xa0 | t.length];
  else if (t.length < 256) head = [0x92, AUTH, 0xd9, t.length];
  else head = [0x92, AUTH, 0xda, t.length >> 8, t.length & 0xff];
  const out = new Uint8Array(head.length + t.length);
  out.set(head, 0);
  out.set(t, head.length);
  return out;
}

const clients = new Map(); // wasm handle -> EnsembleClient

// --- the page's client id, kept across reloads (docs/web.md, "Who the page is")
// The server lets one invite open at most 64 client ids while it runs, so a
// page keeps its id rather than drawing one per load. Stored per server and
// token (its SHA-256, never the token itself), a few of them: each open tab
// holds one through a Web Lock for its life, so two tabs never share one
// (each hello would drop the other's connection). Beside each id, its site
// and the highest id counter it made there, written before each change
// leaves: a reloaded page must not make again an id a collaborator's undo
// may bring back.
const KEEP_IDS = 8;

const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

function defaultStorage() {
  try { return globalThis.localStorage || null; } catch { return null; } // refused: no storage
}

// A Web Lock held until release() is called (or the page goes); null when
// another page holds it.
function tryLock(locks, name) {
  return new Promise((resolve) => {
    locks.request(name, { ifAvailable: true }, (lock) => {
      if (!lock) { resolve(null); return undefined; }
      return new Promise((release) => resolve(release));
    }).catch(() => resolve(null));
  });
}

export class ClientIds {
  // storage: a localStorage; locks: a LockManager; crypto: a Crypto.
  constructor(storage, locks, crypto = globalThis.crypto) {
    this.storage = storage;
    this.locks = locks;
    this.crypto = crypto;
  }

  // Usable in a secure context (https, localhost): Web Locks and
  // crypto.subtle exist only there. Elsewhere each load draws a new id.
  static for(opts) {
    const storage = opts.storage !== undefined ? opts.storage : defaultStorage();
    const locks = opts.locks !== undefined ? opts.locks : globalThis.navigator?.locks;
    const crypto = globalThis.crypto;
    if (!storage || !locks || !crypto?.subtle || !crypto.getRandomValues) return null;
    return new ClientIds(storage, locks, crypto);
  }

  async key(url, token) {
    const d = await this.crypto.subtle.digest('SHA-256', new TextEncoder().encode(token || ''));
    return `ensemble.client:${url}:${hex(new Uint8Array(d)).slice(0, 32)}`;
  }

  read(key) {
    try {
      const list = JSON.parse(this.storage.getItem(key) || '[]');
      return Array.isArray(list) ? list.filter((e) => e && /^[0-9a-f]{32}$/.test(e.id)) : [];
    } catch { return []; }
  }

  write(key, list) {
    this.storage.setItem(key, JSON.stringify(list.slice(0, KEEP_IDS)));
  }

  // {id, site, mark, release}: the first stored id no other page holds,
  // else a new one, stored first.
  async take(url, token) {
    const key = await this.key(url, token);
    for (const e of this.read(key)) {
      const release = await tryLock(this.locks, 'ensemble.client:' + e.id);
      if (release) {
        try {
          this.write(key, [e, ...this.read(key).filter((o) => o.id !== e.id)]); // the latest first
        } catch (err) {
          release();
          throw err;
        }
        return { key, id: e.id, site: e.site | 0, mark: Number(e.mark) || 0, release };
      }
    }
    for (;;) {
      const id = hex(this.crypto.getRandomValues(new Uint8Array(16)));
      if (/^0+$/.test(id)) continue; // the host's
      const release = await tryLock(this.locks, 'ensemble.client:' + id);
      if (!release) continue;
      try {
        this.write(key, [{ id, site: 0, mark: 0 }, ...this.read(key)]);
      } catch (err) { // not kept: this page goes on with a new id of its own (connect)
        release();
        throw err;
      }
      return { key, id, site: 0, mark: 0, release };
    }
  }

  // The highest id counter made under site (before the change leaves).
  mark(key, id, site, mark) {
    const list = this.read(key);
    const e = list.find((o) => o.id === id);
    if (e && e.site === site && e.mark >= mark) return;
    this.write(key, [{ id, site, mark }, ...list.filter((o) => o.id !== id)]);
  }

  forget(key, id) {
    try { this.write(key, this.read(key).filter((o) => o.id !== id)); } catch { /* nothing kept */ }
  }
}

// extra: options for the module (a test under node passes wasmBinary).
export async function loadEnsemble(baseUrl = new URL('.', import.meta.url).href, extra = {}) {
  const { default: factory } = await import(new URL('ensemble.js', baseUrl).href);
  const mod = await factory({ locateFile: (f) => new URL(f, baseUrl).href, ...extra });
  mod.ensWire = (h, bytes) => {
    const c = clients.get(h);
    return c ? c._wire(bytes) : 1;
  };
  mod.ensEvent = (h, json) => {
    const c = clients.get(h);
    if (c) c._event(JSON.parse(json));
  };
  mod.ensMark = (h, site, counter) => {
    const c = clients.get(h);
    if (c) c._mark(site, counter);
  };
  return mod;
}

export class EnsembleClient {
  // opts: {url (ws:// or wss:// of /ws), token, name, colour ('#rrggbb'),
  // WebSocket (a constructor, for node), now (ms clock), storage and locks
  // (where the client id is kept: localStorage and navigator.locks by
  // default; null for a new id each time)}
  constructor(mod, opts) {
    this.mod = mod;
    this.opts = opts;
    this.WS = opts.WebSocket || globalThis.WebSocket;
    this.now = opts.now || (() => performance.now());
    this.h = 0; // the C session, made by connect() once the client id is known
    this.ids = ClientIds.for(opts);
    this.ident = null; // {key, id, site, mark, release} of the kept id
    this.ws = null;
    this.queue = []; // sent by C while the socket was opening
    this.blockedUntil = 0;
    this.state = 'connecting';
    this.everLive = false;
    this.people = new Map(); // site -> a collaborator's presence
    this.mySelection = [];
    this.cb = { state: [], change: [], presence: [], dropped: [], rejected: [] };
    this.timer = null;
  }

  _err() { return this.mod.ccall('ensw_error', 'string', [], []); }
  // Before connect() has made the session: '' and 0.
  _str(fn, args = [], types = []) { return this.h ? this.mod.ccall(fn, 'string', types, args) : ''; }
  _int(fn, args = [], types = []) { return this.h ? this.mod.ccall(fn, 'number', types, args) : 0; }
  _emit(kind, v) { for (const f of this.cb[kind]) f(v); }
  _setState(s) {
    if (s === this.state) return;
    this.state = s;
    this._emit('state', s);
  }

  onstate(f) { this.cb.state.push(f); }
  onchange(f) { this.cb.change.push(f); }
  onpresence(f) { this.cb.presence.push(f); }
  ondropped(f) { this.cb.dropped.push(f); }
  onrejected(f) { this.cb.rejected.push(f); }

  // Takes a kept client id (or a new one) and starts; resolves once the
  // session exists.
  connect() {
    if (!this.starting) this.starting = this._start();
    return this.starting;
  }

  async _start() {
    if (this.ids) {
      try {
        this.ident = await this.ids.take(this.opts.url, this.opts.token || '');
      } catch {
        this.ident = null; // no storage after all: a new id, as without one
      }
    }
    if (this.closed) {
      this.ident?.release();
      return;
    }
    const colour = parseInt(String(this.opts.colour || '#808080').replace('#', ''), 16) || 0;
    this.h = this.mod.ccall('ensw_new', 'number', ['string', 'number', 'string'],
      [this.opts.name || '', colour, this.ident ? this.ident.id : '']);
    if (!this.h) {
      this.ident?.release();
      this._setState('failed');
      throw new Error('ensemble: ' + this._err());
    }
    clients.set(this.h, this);
    if (this.ident && this.ident.site) {
      this.mod.ccall('ensw_id_floor', null, ['number', 'number', 'number'], [this.h, this.ident.site, this.ident.mark]);
    }
    this.timer = setInterval(() => this.tick(), 20);
    this.tick();
  }

  close() {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = null;
    if (this.ws) this.ws.close();
    this.ws = null;
    if (this.h) {
      clients.delete(this.h);
      this.mod.ccall('ensw_free', null, ['number'], [this.h]);
    }
    this.h = 0;
    this.ident?.release(); // the id is free for the next page
    this.ident = null;
  }

  // The client id this page says hello with (32 hex digits), when kept.
  clientId() { return this.ident ? this.ident.id : null; }
  // The name the others see this page by: the invite's when it came in
  // with one (the server says so in its welcome), else the one it chose.
  name() { return this._str('ensw_name', [this.h], ['number']) || this.opts.name || ''; }

  // From C before each local change leaves: the highest id counter made.
  // Without it kept, the id is given up (the next load draws another).
  _mark(site, counter) {
    if (!this.ident) return;
    try {
      this.ids.mark(this.ident.key, this.ident.id, site, counter);
    } catch {
      this.ids.forget(this.ident.key, this.ident.id);
    }
  }

  tick() {
    if (!this.h) return;
    this._int('ensw_tick', [this.h, this.now()], ['number', 'number']);
    this._refreshState();
  }

  _refreshState() {
    const s = this._int('ensw_state', [this.h], ['number']);
    if (s === 2) this._setState('failed');
    else if (s === 1) {
      const first = !this.everLive;
      this.everLive = true;
      this._setState('live');
      if (first) this._emit('presence', this.presence()); // this user is here now
    } else this._setState(this.everLive ? 'reconnecting' : 'connecting');
  }

  // The C client sends: a hello on a new connection, then the rest. A
  // closed socket (or one cut by cutFor) takes nothing: C then drops the
  // connection and says hello again after its backoff, and that hello
  // opens a new socket here.
  _wire(bytes) {
    if (this.now() < this.blockedUntil) return 1;
    if (!this.ws) this._open();
    if (this.ws.readyState === 1) this.ws.send(bytes);
    else this.queue.push(bytes);
    return 0;
  }

  _open() {
    const ws = new this.WS(this.opts.url, 'ensemble');
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.queue = [];
    ws.onopen = () => {
      if (ws !== this.ws) return;
      if (this.opts.token) ws.send(authMessage(this.opts.token));
      for (const b of this.queue) ws.send(b);
      this.queue = [];
    };
    ws.onmessage = (e) => {
      if (ws !== this.ws || !this.h) return;
      const data = new Uint8Array(e.data);
      const p = this.mod._malloc(data.length || 1);
      this.mod.HEAPU8.set(data, p);
      this.mod.ccall('ensw_handle', 'number', ['number', 'number', 'number', 'number'],
        [this.h, p, data.length, this.now()]);
      this.mod._free(p);
      this._refreshState();
    };
    ws.onclose = () => {
      if (ws !== this.ws || !this.h) return;
      this.ws = null;
      this.mod.ccall('ensw_link_lost', null, ['number', 'string', 'number'],
        [this.h, 'the connection closed', this.now()]);
      this._refreshState();
    };
    ws.onerror = () => {};
  }

  _event(ev) {
    switch (ev.kind) {
      case 'joined':
      case 'presence':
        this.people.set(ev.site, {
          site: ev.site, name: ev.name || '', colour: ev.colour,
          selection: ev.selection || [], pointer: ev.pointer || null,
        });
        this._emit('presence', this.presence());
        break;
      case 'left':
        this.people.delete(ev.site);
        this._emit('presence', this.presence());
        break;
      case 'landed':
        this._emit('change', { local: false, site: ev.site, label: ev.label || '', kind: ev.edit || 'other' });
        break;
      case 'reset':
        this._emit('change', { local: false, site: 0, label: 'reset', kind: 'other' });
        break;
      case 'dropped': this._emit('dropped', ev.message || ''); break;
      case 'rejected': this._emit('rejected', ev.message || ''); break;
      case 'connected':
      case 'reconnecting':
      case 'failed':
        this._refreshState();
        break;
      default: break;
    }
  }

  _local(rc, label, kind) {
    if (rc !== 0) throw new Error(label + ': ' + this._err());
    this._emit('change', { local: true, site: this.site(), label, kind });
    this.tick(); // sent now, not at the next timer
  }

  kind() {
    const k = this._str('ensw_kind', [this.h], ['number']);
    return k === 'sfd' || k === 'svg' || k === 'lottie' ? k : (k ? k : null);
  }
  docHash() { return this._str('ensw_doc_hash', [this.h], ['number']); }
  seq() { return this._int('ensw_seq', [this.h], ['number']); }
  pending() { return this._int('ensw_pending', [this.h], ['number']); }
  site() { return this._int('ensw_site', [this.h], ['number']); }

  // --- drawing
  svgText() { return this._str('ensw_svg_text', [this.h], ['number']); }
  svgIds() { return JSON.parse(this._str('ensw_svg_ids', [this.h], ['number'])); }
  svgTranslate(ids, dx, dy) {
    this._local(this._int('ensw_svg_translate', [this.h, ids.join(','), dx, dy],
      ['number', 'string', 'number', 'number']), 'Move', 'move');
  }
  svgDelete(ids) {
    this._local(this._int('ensw_svg_delete', [this.h, ids.join(',')], ['number', 'string']), 'Delete', 'delete');
  }
  svgRaise(id) { this._local(this._int('ensw_svg_order', [this.h, id, 1], ['number', 'string', 'number']), 'Raise', 'order'); }
  svgLower(id) { this._local(this._int('ensw_svg_order', [this.h, id, 0], ['number', 'string', 'number']), 'Lower', 'order'); }
  svgSetColour(ids, prop, colour) {
    this._local(this._int('ensw_svg_colour', [this.h, ids.join(','), prop, colour],
      ['number', 'string', 'string', 'string']), 'Set colour', 'style');
  }

  // --- font
  glyphs() { return JSON.parse(this._str('ensw_glyphs', [this.h], ['number'])); }
  fontInfo() { return JSON.parse(this._str('ensw_font_info', [this.h], ['number'])); }
  // refs: its references to other glyphs, [{glyph: name, id, ref, transform: [xx, xy, yx, yy, dx, dy]}]
  // (x' = xx x + yx y + dx, y' = xy x + yy y + dy); they are drawn by glyphOutline, not edited here.
  // A glyph as the page draws it: contours as lists of points, on-curve
  // ({on: true}) and control points ({on: false}) in drawing order, as in
  // a font editor; a closed contour's repeat of its first point left out.
  // Each point says which SFD point it belongs to (sfd), the index the
  // library's glyph edits take (ensemble/glyph.h).
  glyph(name) {
    const g = JSON.parse(this._str('ensw_glyph', [this.h, name], ['number', 'string']));
    if (!g) return null;
    g.outline = g.contours; // the SFD form: [{closed, points: [{x, y, c1?, c2?}]}]
    g.contours = g.outline.map((c) => {
      const pts = [];
      const n = c.closed && c.points.length > 1 ? c.points.length - 1 : c.points.length;
      c.points.forEach((p, k) => {
        if (p.c1 && k > 0) {
          pts.push({ x: p.c1[0], y: p.c1[1], on: false, sfd: k - 1 });
          pts.push({ x: p.c2[0], y: p.c2[1], on: false, sfd: k < n ? k : 0 });
        }
        if (k < n) pts.push({ x: p.x, y: p.y, on: true, sfd: k });
      });
      return pts;
    });
    return g;
  }
  // The glyph as drawn: {width, contours: [[{x, y, on}...]...], glyphs, cut}, its references'
  // contours included, transformed (recursively, bounded: ens_glyph_outline_get). refsOnly: the
  // references' contours alone (an editor draws the glyph's own points itself). glyphs: the ids of
  // every glyph drawn; cut: a reference was left out (a cycle, too deep, too large).
  glyphOutline(name, { refsOnly = false } = {}) {
    return JSON.parse(this._str('ensw_glyph_outline', [this.h, name, refsOnly ? 1 : 0], ['number', 'string', 'number']));
  }
  // [contour, i] of glyph(name).contours to the SFD point it belongs to
  // (a control point moves with its own point: the library moves a point's
  // control points with it).
  _sfdPoints(name, pts) {
    const g = this.glyph(name);
    const out = new Map();
    for (const [c, i] of pts) {
      const p = g && g.contours[c] && g.contours[c][i];
      if (p) out.set(`${c},${p.sfd}`, [c, p.sfd]);
    }
    return [...out.values()];
  }
  glyphMovePoints(name, pts, dx, dy) {
    const spec = this._sfdPoints(name, pts).map(([c, i]) => `${c},${i}`).join(';');
    this._local(this._int('ensw_glyph_move', [this.h, name, spec, dx, dy],
      ['number', 'string', 'string', 'number', 'number']), 'Move points', 'point');
  }
  glyphSetWidth(name, w) {
    this._local(this._int('ensw_glyph_width', [this.h, name, Math.round(w)], ['number', 'string', 'number']),
      'Set width', 'width');
  }
  // A corner point inserted before the point at index (of glyph(name).contours;
  // a control point stands for the on-curve point its segment ends at).
  glyphAddPoint(name, contour, index, x, y) {
    const g = this.glyph(name);
    const pts = (g && g.contours[contour]) || [];
    let sfd = pts.slice(0, index).filter((p) => p.on).length;
    if (sfd === 0 && g && g.outline[contour] && g.outline[contour].closed) sfd = g.outline[contour].points.length - 1;
    this._local(this._int('ensw_glyph_add_point', [this.h, name, contour, sfd, x, y],
      ['number', 'string', 'number', 'number', 'number', 'number']), 'Add point', 'point');
  }
  glyphRemovePoint(name, contour, index) {
    const [pt] = this._sfdPoints(name, [[contour, index]]);
    if (!pt) throw new Error('Remove point: no such point');
    this._local(this._int('ensw_glyph_remove_point', [this.h, name, contour, pt[1]],
      ['number', 'string', 'number', 'number']), 'Remove point', 'point');
  }

  // --- animation (addresses of ensemble/lottieedit.h: "[0].p")
  lottieText() { return this._str('ensw_lottie_text', [this.h], ['number']); }
  // the id ("site:counter") of the layer, shape or property at an address, or null
  lottieFind(address) { return JSON.parse(this._str('ensw_lottie_find', [this.h, address], ['number', 'string'])); }
  lottieMoveKeyframe(prop, t, newT) {
    this._local(this._int('ensw_lottie_move_keyframe', [this.h, prop, t, newT],
      ['number', 'string', 'number', 'number']), 'Move keyframe', 'move');
  }
  lottieShiftLayer(layer, dt) {
    this._local(this._int('ensw_lottie_shift_layer', [this.h, layer, dt], ['number', 'string', 'number']),
      'Shift layer', 'move');
  }

  // --- the user's own undo
  undo() { return this._undo(0); }
  redo() { return this._undo(1); }
  _undo(redo) {
    if (!this.h) return { done: false, applied: 0, skipped: 0, label: '', note: '' };
    const r = JSON.parse(this._str('ensw_undo', [this.h, redo], ['number', 'number']));
    if (r.done) this._emit('change', { local: true, site: this.site(), label: r.label, kind: 'other' });
    this.tick();
    return r;
  }

  // --- presence
  setSelection(ids) {
    this.mySelection = [...ids];
    this._int('ensw_set_selection', [this.h, ids.join(',')], ['number', 'string']);
  }
  setPointer(x, y, ctx = '0:0') {
    this._int('ensw_set_pointer', [this.h, x, y, ctx], ['number', 'number', 'number', 'string']);
  }
  clearPointer() { this.mod.ccall('ensw_clear_pointer', null, ['number'], [this.h]); }
  // Everyone here, this user first (me: true, with the selection this page
  // set), then the collaborators in the order they came.
  presence() {
    const self = {
      site: this.site(), name: this.name(), colour: this.opts.colour || '#808080',
      selection: this.mySelection, pointer: null, me: true,
    };
    return [self, ...[...this.people.values()].filter((p) => p.site !== self.site)];
  }

  // Test hook: the socket closes and no new one opens for ms; edits go on
  // into the pending queue and are sent when it comes back.
  cutFor(ms) {
    this.blockedUntil = this.now() + ms;
    if (this.ws) {
      const ws = this.ws;
      ws.onclose(); // handled now: C learns at once, as on a real drop
      ws.onclose = null;
      ws.close();
    }
  }
}
