// The web client's WebAssembly session client (build/web/ensemble.js,
// web/ensemble-client.js) against a real `ensemble serve --http`: two
// clients edit a drawing and a font at once and converge with the
// server's document; each one's undo takes back only its own gesture and
// says when it skipped a collaborator's newer change; a client whose
// socket is cut while it keeps editing converges with nothing lost. With
// an invite, a page's own name is the invite's; its client id is kept
// across reloads (stub storage and locks) and never shared by two open
// pages, and a reloaded page never makes again an id a collaborator's
// undo brings back.
// Usage: node session.test.mjs BUILD_DIR SOURCE_DIR. Exit 77: skipped.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [build, source] = process.argv.slice(2);
const webDir = path.join(build, 'web');
if (!fs.existsSync(path.join(webDir, 'ensemble.wasm'))) {
  console.log('skipped: the web client was not built (no emcc)');
  process.exit(77);
}
let WebSocket;
try {
  ({ WebSocket } = await import('ws'));
} catch {
  console.log('skipped: npm package ws missing (npm ci in tests/web)');
  process.exit(77);
}
const { loadEnsemble, EnsembleClient } = await import(pathToFileURL(path.join(webDir, 'ensemble-client.js')).href);

const deadline = Date.now() + 100000; // the whole test stops by itself
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'} - ${what}`);
  if (!ok) failures++;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, f, ms = 15000) {
  const end = Math.min(Date.now() + ms, deadline);
  while (Date.now() < end) {
    if (f()) return true;
    await sleep(20);
  }
  check(false, `timed out waiting for ${what}`);
  return false;
}

// The bounding box [xmin, ymin, xmax, ymax] of contours as glyphOutline() gives them (on-curve
// points, each segment's 0, 1 or 2 control points), curve extrema included, as FontForge measures.
function outlineBox(contours) {
  let box = null;
  const add = (x, y) => {
    if (!box) box = [x, y, x, y];
    else box = [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)];
  };
  // extrema of one coordinate of a Bezier given by its control values
  const extrema = (v) => {
    if (v.length === 3) { const d = v[0] - 2 * v[1] + v[2]; return d ? [(v[0] - v[1]) / d] : []; }
    if (v.length !== 4) return [];
    const a = -v[0] + 3 * v[1] - 3 * v[2] + v[3], b = 2 * (v[0] - 2 * v[1] + v[2]), c = v[1] - v[0];
    if (Math.abs(a) < 1e-12) return b ? [-c / b] : [];
    const disc = b * b - 4 * a * c;
    if (disc < 0) return [];
    return [(-b + Math.sqrt(disc)) / (2 * a), (-b - Math.sqrt(disc)) / (2 * a)];
  };
  const at = (v, t) => v.length === 3
    ? (1 - t) ** 2 * v[0] + 2 * (1 - t) * t * v[1] + t * t * v[2]
    : (1 - t) ** 3 * v[0] + 3 * (1 - t) ** 2 * t * v[1] + 3 * (1 - t) * t * t * v[2] + t ** 3 * v[3];
  for (const pts of contours) {
    const first = pts.findIndex((p) => p.on);
    if (first < 0) continue;
    let seg = [pts[first]];
    add(pts[first].x, pts[first].y);
    for (let k = 1; k <= pts.length; k++) {
      const p = pts[(first + k) % pts.length];
      seg.push(p);
      if (!p.on) continue;
      add(p.x, p.y);
      if (seg.length > 2) {
        const xs = seg.map((q) => q.x), ys = seg.map((q) => q.y);
        for (const t of [...extrema(xs), ...extrema(ys)]) if (t > 0 && t < 1) add(at(xs, t), at(ys, t));
      }
      seg = [p];
    }
  }
  return box;
}

const procs = [];
const dirs = [];
async function serve(file, extra = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-web-'));
  dirs.push(dir);
  const copy = path.join(dir, path.basename(file));
  fs.copyFileSync(file, copy);
  const p = spawn(path.join(build, 'ensemble'),
    ['serve', '--bind', 'tcp://127.0.0.1:*', '--http', '127.0.0.1:0', '--quiet', ...extra, copy],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  procs.push(p);
  let out = '';
  p.stdout.on('data', (d) => { out += d; });
  await until('serve to print its addresses', () => /http:\/\/[^\s]+/.test(out));
  const http = out.match(/http:\/\/[^\s/]+/)[0];
  const endpoint = out.split('\n')[0].trim().split(/\s+/)[0];
  return { http, endpoint, ws: http.replace('http:', 'ws:') + '/ws', dir, copy, proc: p };
}

async function status(srv) {
  const r = await fetch(srv.http + '/status' + (srv.query || ''));
  return r.json();
}

// emscripten 3.1.6's ES module expects CommonJS globals under node
globalThis.__dirname = webDir;
globalThis.require = createRequire(import.meta.url);
const mod = await loadEnsemble(pathToFileURL(webDir + '/').href,
  { wasmBinary: fs.readFileSync(path.join(webDir, 'ensemble.wasm')) });
function client(srv, name, colour, more = {}) {
  const c = new EnsembleClient(mod, { url: srv.ws, name, colour, WebSocket, ...more });
  c.connect();
  return c;
}

// A page's localStorage and navigator.locks, as a browser gives them to
// the pages of one origin (ifAvailable: a lock another holds is refused).
class StubStorage {
  constructor() { this.m = new Map(); this.writes = 0; }
  getItem(k) { return this.m.has(k) ? this.m.get(k) : null; }
  setItem(k, v) { this.writes++; this.m.set(k, String(v)); }
  removeItem(k) { this.m.delete(k); }
}
class StubLocks {
  constructor() { this.held = new Set(); }
  async request(name, opts, cb) {
    if (this.held.has(name)) return cb(null);
    this.held.add(name);
    try { return await cb({ name }); } finally { this.held.delete(name); }
  }
}
const settled = (cs) => cs.every((c) => c.state === 'live' && c.pending() === 0);
async function converged(srv, cs, what) {
  let st = null;
  const ok = await until(what, () => {
    if (!settled(cs)) return false;
    if (!st) status(srv).then((s) => { st = s; }).catch(() => {});
    const seqs = new Set(cs.map((c) => c.seq()));
    if (st && (seqs.size !== 1 || st.head !== cs[0].seq())) {
      st = null;
      return false;
    }
    return st !== null;
  });
  if (!ok) return;
  check(cs.every((c) => c.docHash() === st.hash), `${what}: every client holds the server's document (${st.hash}, seq ${st.head})`);
}

try {
  // --- a drawing
  const svg = await serve(path.join(source, 'tests/resources/drawings/adwaita/go-home-symbolic.svg'));
  const a = client(svg, 'Ada', '#d03030');
  const b = client(svg, 'Bo', '#3050d0');
  await until('both clients live', () => a.state === 'live' && b.state === 'live');
  check(a.kind() === 'svg', `the client sees a drawing (${a.kind()})`);
  const ids = a.svgIds();
  const text = a.svgText();
  check(ids.length >= 5 && text.includes('<svg'), `svgText() is the drawing, ${ids.length} elements`);
  const shapes = ids.filter((id) => {
    // the shapes: elements the writer puts after the root, by their rank
    return id !== ids[0];
  });
  await until('each sees the other', () => a.presence().some((p) => p.name === 'Bo') && b.presence().some((p) => p.name === 'Ada'));
  check(a.presence().some((p) => p.name === 'Bo' && p.colour === '#3050d0'), 'presence: Ada sees Bo in his colour');
  check(a.presence()[0].me && a.presence()[0].name === 'Ada' && a.presence().length === 2, 'presence lists Ada herself first, once');

  // both edit at once, a gesture on several elements being one transaction
  for (let i = 0; i < 10; i++) {
    a.svgTranslate([shapes[0], shapes[1]], 1, 2);
    b.svgSetColour([shapes[2]], 'fill', i % 2 ? '#112233' : '#445566');
  }
  b.setSelection([shapes[2]]);
  b.setPointer(4.5, 7.25);
  await converged(svg, [a, b], 'drawing, 20 concurrent gestures');
  await until('Bo\'s selection and pointer at Ada', () => a.presence().some((p) => p.name === 'Bo' && p.selection.includes(shapes[2]) && p.pointer && p.pointer.x === 4.5));
  check(true, 'presence carries selection and pointer');

  // undo takes back only the user's own gesture, and says when it skipped
  const before = a.svgText();
  a.svgSetColour([shapes[3]], 'fill', '#ff0000');
  await converged(svg, [a, b], 'Ada colours a shape');
  b.svgSetColour([shapes[3]], 'fill', '#00ff00');
  await converged(svg, [a, b], 'Bo colours it after her');
  const r = a.undo();
  check(r.skipped === 1 && r.note.length > 0, `Ada's undo skips Bo's newer colour and says so: "${r.note}"`);
  await converged(svg, [a, b], 'after the skipping undo');
  check(a.svgText().includes('#00ff00'), 'Bo\'s colour stands');
  const r2 = a.undo(); // her translate: the last of her ten moves
  check(r2.done && r2.skipped === 0, `Ada's next undo takes back her own move (${r2.label})`);
  await converged(svg, [a, b], 'after her own undo');
  check(before !== a.svgText(), 'the drawing changed back only by her steps');

  // a cut socket: edits go on, are sent when it comes back
  a.cutFor(1500);
  for (let i = 0; i < 5; i++) a.svgTranslate([shapes[4]], 3, 0);
  b.svgTranslate([shapes[0]], 0, -1);
  await sleep(300);
  check(a.state === 'reconnecting' && a.pending() === 5, `while cut: "${a.state}", ${a.pending()} gestures pending`);
  await converged(svg, [a, b], 'after the cut');
  const st = await status(svg);
  // 20 gestures, 2 colours, the skipping undo (nothing left to apply), her
  // own undo, 5 moves while cut and Bo's one
  check(st.head === 20 + 2 + 0 + 1 + 5 + 1, `the server holds every gesture once (head ${st.head})`);

  // --- a font
  const sfd = await serve(path.join(source, 'tests/resources/fonts/DejaVuSans-ExtraLight-subset.sfd'));
  const fa = client(sfd, 'Ada', '#d03030');
  const fb = client(sfd, 'Bo', '#3050d0');
  await until('both font clients live', () => fa.state === 'live' && fb.state === 'live');
  const glyphs = fa.glyphs();
  check(fa.kind() === 'sfd' && glyphs.length > 10, `the client sees a font, ${glyphs.length} glyphs`);
  const outlined = glyphs.map((g) => fa.glyph(g.name)).filter((g) => g && g.outline.length && g.outline[0].points.length > 3);
  check(outlined.length >= 2, `${outlined.length} glyphs with outlines`);
  const [g1, g2] = outlined;
  const info = fa.fontInfo();
  check(info.ascent > 0 && info.em > info.ascent, `metrics: ascent ${info.ascent}, em ${info.em}`);
  // the page's indices: points in drawing order, control points included
  const on1 = g1.contours[0].findIndex((p) => p.on && p.sfd === 1);
  const on0 = g1.contours[0].findIndex((p) => p.on && p.sfd === 0);
  check(on1 > on0 && g1.contours[0].filter((p) => p.on).length === g1.outline[0].points.length - (g1.outline[0].closed ? 1 : 0),
    'glyph(): on-curve points in order, each SFD point once');

  // composites: each draws its references' outlines, transformed; the bounding boxes are
  // FontForge's, read from this file with /usr/bin/python3's fontforge module:
  // f = fontforge.open(p); f[name].boundingBox()
  const FF_BOXES = {
    Agrave: [61, 0, 1333, 1899], Aacute: [61, 0, 1333, 1899], Acircumflex: [61, 0, 1333, 1901],
    Adieresis: [61, 0, 1333, 1870], Ccedilla: [170, -386, 1319, 1520], Eacute: [249, 0, 1111, 1899],
    agrave: [168, -29, 1023, 1638], aacute: [168, -29, 1023, 1638], adieresis: [168, -29, 1023, 1552],
    ccedilla: [140, -386, 999, 1147], egrave: [162, -29, 1105, 1638], eacute: [162, -29, 1105, 1638],
    ntilde: [232, 0, 1078, 1570], odieresis: [162, -34, 1090, 1552],
  };
  const composites = glyphs.filter((g) => (fa.glyph(g.name).refs || []).length).map((g) => g.name);
  check(composites.sort().join() === Object.keys(FF_BOXES).sort().join(),
    `glyph().refs names the ${composites.length} composites FontForge sees: ${composites.join(' ')}`);
  const boxOff = [];
  for (const name of composites) {
    const o = fa.glyphOutline(name);
    const want = FF_BOXES[name];
    const got = outlineBox(o.contours);
    const own = fa.glyph(name).contours.length;
    if (!got || own !== 0 || o.cut || got.some((v, i) => Math.abs(v - want[i]) > 0.01)) boxOff.push(`${name} ${got} (own ${own}, cut ${o.cut})`);
  }
  check(boxOff.length === 0, `each composite's drawn outline has FontForge's bounding box, though it has no contour of its own: ${boxOff.join('; ') || 'all 14'}`);
  const ag = fa.glyph('Agrave');
  check(ag.refs.length === 2 && ag.refs[0].glyph === 'A' && ag.refs[0].transform.join() === '1,0,0,1,0,0' &&
    ag.refs[1].glyph === 'Grave' && ag.refs[1].transform.join() === '1,0,0,1,1212,373' && ag.refs[0].id === fa.glyph('A').id,
  `Agrave's refs: ${JSON.stringify(ag.refs.map((r) => [r.glyph, r.transform]))}`);
  // Agrave drawn = A's outline, then Grave's moved by (1212, 373), point for point
  const agOut = fa.glyphOutline('Agrave'), aOut = fa.glyphOutline('A'), gOut = fa.glyphOutline('Grave');
  const moved = gOut.contours.map((c) => c.map((p) => ({ x: p.x + 1212, y: p.y + 373, on: p.on })));
  check(JSON.stringify(agOut.contours) === JSON.stringify([...aOut.contours, ...moved]),
    `Agrave's outline is A's (${aOut.contours.length} contours) and Grave's moved by (1212, 373) (${moved.length})`);
  check(agOut.glyphs.join() === [ag.id, fa.glyph('A').id, fa.glyph('Grave').id].join(), 'glyphOutline().glyphs: Agrave, A, Grave');
  check(fa.glyphOutline('Agrave', { refsOnly: true }).contours.length === agOut.contours.length, 'refsOnly: the same, the glyph has no contour of its own');
  // a collaborator's change to A reaches Agrave as drawn
  const aPts = fa.glyph('A').contours[0];
  const aFirst = aPts.findIndex((p) => p.on);
  fb.glyphMovePoints('A', [[0, aFirst]], -40, 0);
  await converged(sfd, [fa, fb], 'font, a point of A moved');
  const agNow = fa.glyphOutline('Agrave');
  check(agNow.contours[0][0].x === aOut.contours[0][0].x - 40 && outlineBox(agNow.contours)[0] <= FF_BOXES.Agrave[0],
    `Bo moves a point of A: Ada's Agrave follows (${aOut.contours[0][0].x} -> ${agNow.contours[0][0].x})`);
  fb.undo();
  await converged(sfd, [fa, fb], 'font, the move of A undone');

  for (let i = 0; i < 8; i++) {
    fa.glyphMovePoints(g1.name, [[0, on1]], 5, 0);
    fb.glyphSetWidth(g2.name, g2.width + i + 1);
  }
  fa.glyphAddPoint(g1.name, 0, on1, g1.outline[0].points[0].x + 1, g1.outline[0].points[0].y + 1);
  await converged(sfd, [fa, fb], 'font, concurrent point drags and widths');
  const after = fb.glyph(g1.name);
  check(after.outline[0].points.length === g1.outline[0].points.length + 1, 'Bo sees Ada\'s added point');
  check(Math.abs(after.outline[0].points[2].x - (g1.outline[0].points[1].x + 40)) < 1e-6, 'Bo sees her point moved 8 x 5');
  check(fa.glyph(g2.name).width === g2.width + 8, 'Ada sees Bo\'s last width');
  const u = fb.undo();
  check(u.done && fb.glyph(g2.name).width === g2.width + 7, 'Bo\'s undo takes back his last width only');
  await converged(sfd, [fa, fb], 'font after undo');
  const removeAt = fb.glyph(g1.name).contours[0].findIndex((p) => p.on && p.sfd === 1);
  fb.glyphRemovePoint(g1.name, 0, removeAt);
  await converged(sfd, [fa, fb], 'font after Bo removes the added point');
  check(fa.glyph(g1.name).outline[0].points.length === g1.outline[0].points.length, 'Ada sees the point removed');

  // --- an animation: two layers whose position has keyframes at 0 and 30
  const layer = (ind, nm, x) => ({
    ddd: 0, ind, ty: 4, nm, sr: 1, ip: 0, op: 60, st: 0, bm: 0,
    ks: { o: { a: 0, k: 100 }, r: { a: 0, k: 0 }, a: { a: 0, k: [0, 0] }, s: { a: 0, k: [100, 100] },
      p: { a: 1, k: [{ t: 0, s: [x, 20], i: { x: [0.5], y: [0.5] }, o: { x: [0.5], y: [0.5] } }, { t: 30, s: [x, 80] }] } },
    shapes: [{ ty: 'rc', nm: 'Box', p: { a: 0, k: [0, 0] }, s: { a: 0, k: [20, 20] }, r: { a: 0, k: 0 } },
      { ty: 'fl', nm: 'Fill', c: { a: 0, k: [1, 0, 0, 1] }, o: { a: 0, k: 100 } }],
  });
  const anim = { v: '5.7.0', fr: 30, ip: 0, op: 60, w: 100, h: 100, nm: 'two boxes', ddd: 0, assets: [],
    layers: [layer(1, 'Red', 30), layer(2, 'Blue', 70)] };
  const animFile = path.join(os.tmpdir(), `ensemble-web-anim-${process.pid}.json`);
  fs.writeFileSync(animFile, JSON.stringify(anim, null, 1));
  const lot = await serve(animFile);
  fs.unlinkSync(animFile);
  const la = client(lot, 'Ada', '#d03030');
  const lb = client(lot, 'Bo', '#3050d0');
  await until('both animation clients live', () => la.state === 'live' && lb.state === 'live');
  check(la.kind() === 'lottie' && JSON.parse(la.lottieText()).layers.length === 2, `the client sees an animation (${la.kind()})`);
  la.lottieMoveKeyframe('[0].p', 30, 45);
  lb.lottieShiftLayer('[1]', 5);
  await converged(lot, [la, lb], 'animation: a keyframe moved and a layer shifted at once');
  const seen = JSON.parse(lb.lottieText());
  check(seen.layers[0].ks.p.k[1].t === 45, `Bo sees Ada's keyframe at 45 (${seen.layers[0].ks.p.k[1].t})`);
  check(seen.layers[1].ks.p.k[0].t === 5 && seen.layers[1].ks.p.k[1].t === 35, 'and his own layer shifted by 5');
  const ua = la.undo();
  await converged(lot, [la, lb], 'animation after Ada\'s undo');
  check(ua.done && JSON.parse(lb.lottieText()).layers[0].ks.p.k[1].t === 30, 'her undo puts her keyframe back at 30');
  for (const c of [a, b, fa, fb, la, lb]) c.close();

  // --- who a page is: its client id kept across reloads, never shared by two
  // open pages; its own name the invite's
  const invDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-web-inv-'));
  dirs.push(invDir);
  const invites = path.join(invDir, 'invites');
  const tok = /^token (\S+)/m.exec(execFileSync(path.join(build, 'ensemble'),
    ['invite', '--invites', invites, 'alice'], { encoding: 'utf8' }))[1];
  const inv = await serve(path.join(source, 'tests/resources/fonts/DejaVuSans-ExtraLight-subset.sfd'), ['--invites', invites]);
  inv.query = '?token=' + tok;
  const storage = new StubStorage();
  const locks = new StubLocks();
  const page = (name) => client(inv, name, '#20a040', { token: tok, storage, locks });
  const p1 = page('a name the page chose');
  const other = client(inv, 'Bo', '#3050d0', { token: tok, storage: null }); // the same person elsewhere, no storage
  await until('the invited pages live', () => p1.state === 'live' && other.state === 'live');
  check(p1.name() === 'alice' && p1.presence()[0].me && p1.presence()[0].name === 'alice',
    `the page's own name is the invite's (${p1.name()}), not the one it chose`);
  await until('the other sees her as alice', () => other.presence().some((p) => !p.me && p.name === 'alice'));
  const id1 = p1.clientId();
  const site1 = p1.site();
  check(/^[0-9a-f]{32}$/.test(id1) && ![...storage.m.keys()].some((k) => k.includes(tok)) &&
    ![...storage.m.values()].some((v) => v.includes(tok)), 'the client id is stored under a hash of the token, never the token');
  const p2 = page('a second tab');
  await until('a second tab live', () => p2.state === 'live');
  check(p2.clientId() !== id1 && p2.site() !== site1, `a second open tab draws its own id (sites ${site1}, ${p2.site()})`);
  // the hazard: a point the page made, removed by a collaborator; the page
  // reloads (memory lost, id kept) and makes a point again; the
  // collaborator's undo brings the removed point back
  const gl = p1.glyphs().map((g) => p1.glyph(g.name)).find((g) => g && g.outline.length && g.outline[0].points.length > 3);
  const n0 = gl.outline[0].points.length;
  const at = (c, sfd) => c.glyph(gl.name).contours[0].findIndex((p) => p.on && p.sfd === sfd);
  p1.glyphAddPoint(gl.name, 0, at(p1, 1), gl.outline[0].points[0].x + 3, gl.outline[0].points[0].y + 3);
  await converged(inv, [p1, p2, other], 'the page added a point');
  const mark = JSON.parse([...storage.m.values()][0]).find((e) => e.id === id1);
  check(mark && mark.site === site1 && mark.mark > 0, `the page stored its id mark before sending (site ${mark?.site}, counter ${mark?.mark})`);
  other.glyphRemovePoint(gl.name, 0, at(other, 1));
  await converged(inv, [p1, p2, other], 'a collaborator removed it');
  p1.close(); // a reload
  const p1b = page('a name the page chose');
  await until('the reloaded page live', () => p1b.state === 'live');
  check(p1b.clientId() === id1 && p1b.site() === site1, `the reloaded page says hello with its kept id and has its site again (${p1b.site()})`);
  p1b.glyphAddPoint(gl.name, 0, at(p1b, 2), gl.outline[0].points[0].x + 5, gl.outline[0].points[0].y + 9);
  await converged(inv, [p1b, p2, other], 'the reloaded page added a point');
  const back = other.undo();
  check(back.done && back.skipped === 0, `the collaborator's undo brings the removed point back (done ${back.done}, skipped ${back.skipped}${back.error ? ', ' + back.error : ''})`);
  await converged(inv, [p1b, p2, other], 'after the undo');
  check(p1b.glyph(gl.name).outline[0].points.length === n0 + 2, `both points are there (${p1b.glyph(gl.name).outline[0].points.length}, was ${n0})`);
  for (const c of [p1b, p2, other]) c.close();
} catch (e) {
  check(false, 'exception: ' + (e && e.stack ? e.stack : e));
} finally {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => (p.exitCode !== null ? null : new Promise((r) => p.on('exit', r)))));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
}
console.log(failures ? `${failures} failed` : 'all passed');
process.exit(failures ? 1 : 0);
