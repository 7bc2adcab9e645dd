// The web client's page on a scripted client (fake-client.js in place of ensemble-client.js): each
// view's gestures ask the client for exactly one edit, collaborators' SVG cannot run script, presence
// and the connection state show in the DOM, undo notes are shown, the orchestra plays.
// Screenshots of each view go to BUILD/browser-shots/ui-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, check, finish, shot, until, drawingDiff } from './lib.mjs';

const build = process.argv[2];
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(build, 'web');
if (!fs.existsSync(path.join(root, 'index.html'))) { console.log(`skipped: no ${root}/index.html (the web client is built only with emcc)`); process.exit(77); }
const corpus = path.resolve(process.env.ENSEMBLE_CORPUS || path.join(here, '../../../shared/corpus'));
const GRID_SVG = 'svg/librsvg/rsvg/tests/fixtures/reftests/adwaita/view-app-grid-symbolic.svg';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };


const browser = await launch();
async function open(hash) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  page.on('pageerror', e => check(false, 'page error: ' + e.message));
  await page.route('http://ensemble.test/**', route => {
    const p = new URL(route.request().url()).pathname;
    const file = p === '/ensemble-client.js' ? path.join(here, 'fake-client.js')
      : p.startsWith('/corpus/') ? path.join(corpus, p.slice('/corpus/'.length))
      : path.join(root, p === '/' ? 'index.html' : p);
    if (!file.startsWith(root) && !file.startsWith(here) && !file.startsWith(corpus)) return route.fulfill({ status: 404 });
    if (!fs.existsSync(file)) return route.fulfill({ status: 404 });
    route.fulfill({ body: fs.readFileSync(file), contentType: TYPES[path.extname(file)] || 'application/octet-stream' });
  });
  await page.goto('http://ensemble.test/#token=T0KEN&doc=demo.' + (hash.includes('sfd') ? 'sfd' : 'svg') + '&' + hash);
  await page.waitForFunction(() => window.fakeClient);
  return page;
}
const calls = page => page.evaluate(() => window.fakeClient.calls.filter(c => c[0] !== 'setSelection'));
const clear = page => page.evaluate(() => { window.fakeClient.calls = []; });

// --- drawing
{
  const page = await open('fake=svg');
  check((await page.textContent('#conn-state')) === 'connecting…', 'connecting shown before the first state');
  const connect = (await calls(page))[0];
  check(connect[0] === 'connect' && connect[1] === 'ws://ensemble.test/ws' && connect[2] === 'T0KEN',
        'connects to the page\'s own /ws with the fragment\'s token: ' + JSON.stringify(connect));
  await page.evaluate(() => window.fakeClient.setState('live'));
  await page.waitForSelector('#drawing svg [data-ens-id="1:2"]');
  check((await page.textContent('#conn-state')) === 'live', 'live shown');
  check((await page.textContent('#doc-name')).includes('demo.svg · drawing'), 'document name and kind in the top bar');
  const unsafe = await page.evaluate(() => ({
    scripts: document.querySelectorAll('#drawing script').length,
    on: Array.from(document.querySelectorAll('#drawing *')).filter(e => Array.from(e.attributes).some(a => /^on/i.test(a.name))).length,
    js: Array.from(document.querySelectorAll('#drawing a')).filter(a => /javascript/i.test(a.getAttribute('href') || '')).length,
    pwned: window.pwned || 0,
  }));
  check(unsafe.scripts === 0 && unsafe.on === 0 && unsafe.js === 0, 'no script, on* attribute or javascript: URL reaches the page: ' + JSON.stringify(unsafe));
  await page.click('#drawing [data-ens-id="1:6"]');
  check(unsafe.pwned === 0 && (await page.evaluate(() => window.pwned || 0)) === 0, 'the drawing\'s scripts never ran, even on a click');
  await clear(page);

  // drag the rectangle: a live preview, then one translate at mouse-up
  const box = await page.locator('#drawing [data-ens-id="1:2"]').boundingBox();
  await page.mouse.move(box.x + 20, box.y + 20);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + 20 + 8 * i, box.y + 20 + 4 * i);
  const during = await calls(page);
  const preview = await page.getAttribute('#drawing [data-ens-id="1:2"]', 'transform');
  check(during.length === 0 && /^translate\(/.test(preview || ''), 'no edit during the drag, a transform preview: ' + preview);
  await page.mouse.up();
  let c = await calls(page);
  const scale = await page.evaluate(() => document.querySelector('#drawing svg').getScreenCTM().a);
  check(c.length === 1 && c[0][0] === 'svgTranslate' && c[0][1].join() === '1:2' &&
        Math.abs(c[0][2] - 80 / scale) < 0.6 && Math.abs(c[0][3] - 40 / scale) < 0.6,
        `one drag = one svgTranslate in document units (${(80 / scale).toFixed(2)}, ${(40 / scale).toFixed(2)}): ` + JSON.stringify(c));
  await clear(page);

  // a click without moving selects only
  await page.click('#drawing [data-ens-id="1:3"]');
  check((await calls(page)).length === 0, 'a click is a selection, not an edit');
  const sel = await page.evaluate(() => window.fakeClient.calls.filter(c => c[0] === 'setSelection').pop());
  check(sel && sel[1].join() === '1:3', 'the selection is sent as presence: ' + JSON.stringify(sel));
  await page.click('button[data-act=raise]');
  await page.click('button[data-act=lower]');
  await page.evaluate(() => { const i = document.getElementById('fill-colour'); i.value = '#00aa55'; i.dispatchEvent(new Event('change')); });
  c = await calls(page);
  check(JSON.stringify(c) === JSON.stringify([['svgRaise', '1:3'], ['svgLower', '1:3'], ['svgSetColour', ['1:3'], 'fill', '#00aa55']]),
        'raise, lower, fill: one call each: ' + JSON.stringify(c));
  await clear(page);
  await page.keyboard.press('Delete');
  c = await calls(page);
  check(c.length === 1 && c[0][0] === 'svgDelete' && c[0][1].join() === '1:3', 'Delete: one svgDelete of the selection');
  await page.waitForFunction(() => !document.querySelector('#drawing [data-ens-id="1:3"]'));
  check(true, 'the deleted element left the page');

  // undo with a skip note, then nothing to redo
  await page.evaluate(() => { window.fakeClient.undoResult = { done: true, skipped: 1, note: 'Undo skipped a change Bob made after yours.' }; });
  await clear(page);
  await page.keyboard.press('Control+z');
  check((await page.textContent('#undo-note')).includes('skipped a change Bob made'), 'Ctrl+Z shows the skip note');
  await page.keyboard.press('Control+Shift+Z');
  c = await calls(page);
  check(JSON.stringify(c) === '[["undo"],["redo"]]', 'Ctrl+Z undo, Ctrl+Shift+Z redo: ' + JSON.stringify(c));
  check((await page.textContent('#undo-note')) === 'Nothing to redo.', 'a redo with nothing to redo says so');

  // presence of another person: name, colour, selection box, cursor
  const scr = await page.evaluate(() => {
    const m = document.querySelector('#drawing svg').getScreenCTM();
    return { a: m.a };
  });
  await page.evaluate(() => window.fakeClient.setPeople([{ site: '2', name: 'Bob', colour: '#e0457b', selection: ['1:4'], pointer: { x: 150, y: 60, ctx: '0' } }]));
  await page.waitForSelector('.overlay .sel-box[data-site="2"]');
  check(JSON.stringify(await page.evaluate(() => window.ensembleTest.presenceNames())).includes('Bob'), 'Bob in the top bar');
  const bob = await page.evaluate(() => {
    const b = document.querySelector('.overlay .sel-box[data-site="2"]'), k = document.querySelector('.overlay .cursor[data-site="2"]');
    const path = document.querySelector('#drawing [data-ens-id="1:4"]').getBoundingClientRect(), o = document.getElementById('drawing').getBoundingClientRect();
    return { colour: getComputedStyle(b).borderTopColor, tag: b.textContent, cursor: k && k.textContent,
             cx: k && parseFloat(k.style.left), bx: parseFloat(b.style.left), px: path.left - o.left };
  });
  check(bob.colour === 'rgb(224, 69, 123)' && bob.tag === 'Bob' && Math.abs(bob.bx - (bob.px - 2)) < 1,
        'Bob\'s selection outlined in his colour around his element: ' + JSON.stringify(bob));
  check(bob.cursor === 'Bob' && Math.abs(bob.cx - 150 * scr.a) < 2, 'Bob\'s pointer drawn as a labelled cursor at his point');
  await page.evaluate(() => window.fakeClient.setState('reconnecting'));
  check((await page.textContent('#conn-state')) === 'reconnecting…' && !(await page.$('[role=dialog]')),
        'reconnecting shown quietly in the top bar, no dialog');
  await page.evaluate(() => window.fakeClient.setState('live'));

  // the orchestra: silent by default, a tone per change once on, timbre by author
  await page.evaluate(() => window.fakeClient.changed({ kind: 'move', site: '2' }));
  check((await page.evaluate(() => window.ensembleTest.tones())) === 0, 'the orchestra is off by default');
  await page.click('#orchestra-toggle');
  const tones = [];
  for (const [kind, site] of [['move', '2'], ['delete', '2'], ['move', '3']]) {
    await page.evaluate(([k, s]) => window.fakeClient.changed({ kind: k, site: s }), [kind, site]);
    tones.push(await page.evaluate(() => window.ensembleTest.lastTone()));
  }
  check((await page.evaluate(() => window.ensembleTest.tones())) === 3, 'one tone per applied change');
  check(tones[0].frequency !== tones[1].frequency && tones[0].type === tones[1].type,
        'pitch follows the kind of edit, timbre stays with the author: ' + JSON.stringify(tones.slice(0, 2)));
  check(tones[0].frequency === tones[2].frequency, 'the same kind of edit by another author: same pitch');
  await page.mouse.move(10, 10);
  await shot(page, build, 'ui-drawing');
  await page.close();
}

// --- a collaborator's change patches the drawing: untouched elements keep their DOM nodes
{
  const page = await open('fake=svg');
  await page.evaluate(() => window.fakeClient.setState('live'));
  await page.waitForSelector('#drawing svg [data-ens-id="1:2"]');
  const el = id => `document.querySelector('#drawing [data-ens-id="${id}"]')`;
  await page.evaluate(() => {
    const q = id => document.querySelector(`#drawing [data-ens-id="${id}"]`);
    window.held = { svg: q('1:1'), rect: q('1:2'), circle: q('1:3'), path: q('1:4'), overlay: document.querySelector('#drawing .overlay') };
  });
  const same = () => page.evaluate(() => {
    const q = id => document.querySelector(`#drawing [data-ens-id="${id}"]`);
    return { svg: q('1:1') === window.held.svg, rect: q('1:2') === window.held.rect, circle: q('1:3') === window.held.circle,
             path: q('1:4') === window.held.path, overlay: document.querySelector('#drawing .overlay') === window.held.overlay };
  });
  const renders = () => page.evaluate(() => ({ ...window.ensembleTest.view().renders }));
  const r0 = await renders();
  // the circle recoloured
  await page.evaluate(() => {
    const f = window.fakeClient;
    f.svg = f.svg.replace('cx="120" cy="40" r="25" fill="#3366cc"', 'cx="120" cy="40" r="25" fill="#00ff00"');
    f.changed({ kind: 'style' });
  });
  await page.waitForFunction(() => document.querySelector('#drawing [data-ens-id="1:3"]').getAttribute('fill') === '#00ff00');
  let s1 = await same(), r1 = await renders();
  const diffs = [await drawingDiff(page)];
  check(s1.svg && s1.rect && s1.path && s1.circle && s1.overlay && r1.full === r0.full && r1.patched === r0.patched + 1,
        `a collaborator recolours the circle: it is patched in place, every node the same object: ${JSON.stringify({ s1, r0, r1 })}`);
  // a change arriving during a drag: the drag and its preview go on, the change shows
  const box = await page.locator('#drawing [data-ens-id="1:2"]').boundingBox();
  await page.mouse.move(box.x + 20, box.y + 20);
  await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(box.x + 20 + 6 * i, box.y + 20 + 3 * i);
  await clear(page);
  await page.evaluate(() => {
    const f = window.fakeClient;
    f.svg = f.svg.replace('<rect data-ens-id="1:2" x="10"', '<rect data-ens-id="1:2" transform="translate(0 5)" x="10"')
                 .replace('stroke="#228833"', 'stroke="#aa00aa"');
    f.changed({ kind: 'move' });
  });
  await page.waitForFunction(() => document.querySelector('#drawing [data-ens-id="1:4"]').getAttribute('stroke') === '#aa00aa');
  const mid = await page.evaluate(() => document.querySelector('#drawing [data-ens-id="1:2"]').getAttribute('transform'));
  s1 = await same();
  check(/^translate\([\d.]+ [\d.]+\) translate\(0 5\)$/.test(mid || '') && s1.rect && s1.path,
        `during a drag a collaborator's change shows at once; the dragged rectangle keeps its preview on top of the new transform: ${mid}`);
  for (let i = 6; i <= 10; i++) await page.mouse.move(box.x + 20 + 6 * i, box.y + 20 + 3 * i);
  await page.mouse.up();
  const c = await calls(page);
  check(c.length === 1 && c[0][0] === 'svgTranslate' && c[0][1].join() === '1:2', 'the drag still ends in one svgTranslate: ' + JSON.stringify(c));
  check((await page.evaluate(() => document.querySelector('#drawing [data-ens-id="1:2"]').getAttribute('transform'))) === 'translate(0 5)',
        'after mouse-up the rectangle shows the document\'s transform');
  diffs.push(await drawingDiff(page));
  // deleted, then reordered: the others keep their nodes
  await page.evaluate(() => {
    const f = window.fakeClient;
    f.svg = f.svg.replace(/<path data-ens-id="1:4"[^>]*\/>/, '');
    f.changed({ kind: 'delete' });
  });
  await page.waitForFunction(() => !document.querySelector('#drawing [data-ens-id="1:4"]'));
  s1 = await same();
  check(s1.rect && s1.circle && s1.svg && !s1.path, 'a collaborator\'s delete removes that element only: ' + JSON.stringify(s1));
  diffs.push(await drawingDiff(page));
  await page.evaluate(() => {
    const f = window.fakeClient, m = /<rect data-ens-id="1:2"[^>]*\/>\n/.exec(f.svg);
    f.svg = f.svg.replace(m[0], '').replace('</svg>', m[0] + '</svg>');
    f.changed({ kind: 'order' });
  });
  await page.waitForFunction(() => { const all = Array.from(document.querySelectorAll('#drawing svg [data-ens-id]')); return all[all.length - 1].getAttribute('data-ens-id') === '1:2'; });
  s1 = await same();
  const r2 = await renders();
  check(s1.rect && s1.circle && s1.svg && r2.full === r0.full, `a collaborator raises the rectangle to the top: moved, the same node (full redraws: ${r2.full})`);
  diffs.push(await drawingDiff(page));
  check(diffs.every(d => d === ''), 'after each patch the page\'s drawing equals a full fresh copy of the document: ' + JSON.stringify(diffs));
  await page.close();
}

// --- a corpus drawing, with a collaborator's selection and pointer
if (!fs.existsSync(path.join(corpus, GRID_SVG))) console.log('corpus drawing skipped: no ' + path.join(corpus, GRID_SVG));
else {
  const page = await open('fake=svg&svgurl=/corpus/' + GRID_SVG);
  await page.evaluate(() => window.fakeClient.setState('live'));
  await page.waitForSelector('#drawing svg');
  const shapes = await page.evaluate(() => Array.from(document.querySelectorAll('#drawing svg [data-ens-id]'))
    .filter(e => ['path', 'rect', 'circle', 'ellipse', 'polygon'].includes(e.localName) && e.getBBox().width > 1 && (r => document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === e)(e.getBoundingClientRect())).map(e => e.getAttribute('data-ens-id')));
  check(shapes.length === 9, `the corpus drawing shows its ${shapes.length} squares, each one can click`);
  await page.click(`#drawing [data-ens-id="${shapes[0]}"]`);
  await page.evaluate(id => window.fakeClient.setPeople([{ site: '2', name: 'Bob', colour: '#e0457b', selection: [id], pointer: { x: 12, y: 4, ctx: '0' } }]), shapes[1]);
  await page.mouse.move(900, 600);
  await shot(page, build, 'ui-drawing-real');
  await page.close();
}

// --- font: grid and editor
{
  const page = await open('fake=sfd');
  await page.evaluate(() => window.fakeClient.setState('live'));
  await page.waitForSelector('#glyph-grid .cell[data-name="O"]');
  check((await page.$$('#glyph-grid .cell')).length === 4, 'one grid cell per glyph');
  await until(() => page.evaluate(() => document.getElementById('glyph-grid').dataset.drawn === '4'), 3000);
  const inked = await page.evaluate(() => {
    const c = document.querySelector('.cell[data-name="O"] canvas'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] > 128) n++; return n;
  });
  check(inked > 200, `the O's cell is drawn (${inked} inked pixels)`);

  // a composite (Oacute: no contour of its own, O and the acute moved up by 660) is drawn whole
  const ink = name => page.evaluate(n => {
    const c = document.querySelector(`.cell[data-name="${n}"] canvas`), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0, top = c.height;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 128) { k++; top = Math.min(top, Math.floor((i >> 2) / c.width)); }
    return { k, top, sum: Array.from(d).reduce((a, v, i) => a + v * (i % 97), 0) };
  }, name);
  const inkO = await ink('O'), inkOa = await ink('Oacute');
  check(inkOa.k > inkO.k + 15 && inkOa.top <= inkO.top - 3,
        `the composite Oacute shows its O and, above it, its acute: ${inkOa.k} inked pixels from row ${inkOa.top} (the O alone: ${inkO.k} from row ${inkO.top})`);
  // a change to O redraws O and Oacute, and no other cell
  const draws = () => page.evaluate(() => Object.fromEntries(Array.from(document.querySelectorAll('#glyph-grid .cell'), c => [c.dataset.name, +c.dataset.draws])));
  const before = await draws();
  await page.evaluate(() => {
    const o = window.fakeClient.g('O');
    for (const p of o.contours[0]) p.x = 350 + (p.x - 350) / 2;
    window.fakeClient.changed({ kind: 'point' });
  });
  await until(async () => (await draws()).Oacute > before.Oacute, 3000);
  const after = await draws(), inkOa2 = await ink('Oacute');
  check(after.O === before.O + 1 && after.Oacute === before.Oacute + 1 && after.square === before.square && after.acute === before.acute,
        `a change to O redraws O and its composite Oacute only: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  check(inkOa2.k < inkOa.k && inkOa2.sum !== inkOa.sum, `Oacute's cell shows the narrower O (${inkOa.k} -> ${inkOa2.k} inked pixels)`);
  await page.evaluate(() => window.fakeClient.setPeople([{ site: '2', name: 'Bob', colour: '#e0457b', selection: ['1:10'], pointer: null }]));
  check((await page.getAttribute('.cell[data-name="square"]', 'data-who')) === 'Bob', 'Bob\'s glyph marked in the grid');
  await shot(page, build, 'ui-glyph-grid');

  await page.click('.cell[data-name="square"]');
  await page.waitForSelector('#glyph-canvas');
  await clear(page);
  // the editor's own mapping from font units to the canvas
  const px = (x, y) => page.evaluate(([x, y]) => {
    const ed = window.ensembleTest.view().child, r = ed.canvas.getBoundingClientRect(), p = ed.toPx(x, y);
    return [r.left + p[0], r.top + p[1], ed.L.s];
  }, [x, y]);
  let [x, y, s] = await px(500, 400);
  await page.mouse.move(x, y); await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(x + 10 * i, y - 6 * i);
  await page.mouse.up();
  let c = await calls(page);
  check(c.length === 1 && c[0][0] === 'glyphMovePoints' && JSON.stringify(c[0][2]) === '[[0,2]]' &&
        c[0][3] === Math.round(50 / s) && c[0][4] === Math.round(30 / s),
        'dragging a point: one glyphMovePoints in font units: ' + JSON.stringify(c));
  await clear(page);
  [x, y] = await px(600, 200);
  await page.mouse.move(x, y); await page.mouse.down();
  await page.mouse.move(x + 20, y); await page.mouse.move(x + 40, y); await page.mouse.up();
  c = await calls(page);
  check(c.length === 1 && c[0][0] === 'glyphSetWidth' && c[0][2] === 600 + Math.round(40 / s), 'dragging the width line: one glyphSetWidth: ' + JSON.stringify(c));
  await clear(page);
  [x, y] = await px(300, 0);
  await page.mouse.dblclick(x, y);
  c = await calls(page);
  check(c.length === 1 && c[0][0] === 'glyphAddPoint' && c[0][2] === 0 && c[0][3] === 1 && Math.abs(c[0][4] - 300) <= 2 && Math.abs(c[0][5]) <= 2,
        'double-click on a segment adds a point there: ' + JSON.stringify(c));
  await clear(page);
  [x, y] = await px(100, 400);
  await page.mouse.click(x, y);
  await page.keyboard.press('Delete');
  c = await calls(page);
  check(c.length === 1 && c[0][0] === 'glyphRemovePoint' && c[0][2] === 0 && c[0][3] === 4,
        'select + Delete removes the point: ' + JSON.stringify(c));
  await page.evaluate(() => window.fakeClient.setPeople([{ site: '2', name: 'Bob', colour: '#e0457b', selection: ['1:10'], pointer: { x: 250, y: 250, ctx: '1:10' } }]));
  await shot(page, build, 'ui-glyph-editor');
  await page.close();
}

// --- a composite in the glyph editor: its references drawn muted, not points one can pick
{
  const page = await open('fake=sfd&glyph=Oacute');
  await page.evaluate(() => window.fakeClient.setState('live'));
  await page.waitForSelector('#glyph-canvas');
  check((await page.textContent('.glyph-refs')) === 'references O, acute', 'the editor names the references: ' + await page.textContent('.glyph-refs'));
  // the canvas's colour at font units (x, y)
  const rgba = (x, y) => page.evaluate(([x, y]) => {
    const ed = window.ensembleTest.view().child, p = ed.toPx(x, y), dpr = window.devicePixelRatio || 1;
    return Array.from(ed.canvas.getContext('2d').getImageData(Math.round(p[0] * dpr), Math.round(p[1] * dpr), 1, 1).data);
  }, [x, y]);
  const inO = await rgba(350, 350), inAcute = await rgba(400, 760), outside = await rgba(680, 200);
  check(inO[3] > 20 && inO[3] < 120 && inO[2] > inO[0] && inAcute[3] > 20 && outside[3] === 0,
        `O and the acute drawn muted (a light blue-grey) where they are: ${JSON.stringify({ inO, inAcute, outside })}`);
  await shot(page, build, 'ui-glyph-composite');
  await clear(page);
  const [x, y] = await page.evaluate(() => {
    const ed = window.ensembleTest.view().child, r = ed.canvas.getBoundingClientRect(), p = ed.toPx(650, 350);
    return [r.left + p[0], r.top + p[1]];
  });
  await page.mouse.move(x, y); await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(x + 8 * i, y);
  await page.mouse.up();
  const sel = await page.evaluate(() => window.ensembleTest.view().child.selected.length);
  check((await calls(page)).length === 0 && sel === 0, 'dragging a point of a reference edits nothing and selects nothing');
  // O made narrower by a collaborator: the editor redraws Oacute with it
  await page.evaluate(() => {
    const o = window.fakeClient.g('O');
    for (const p of o.contours[0]) p.x = 350 + (p.x - 350) / 2;
    window.fakeClient.changed({ kind: 'point' });
  });
  check(await until(async () => (await rgba(600, 350))[3] === 0, 3000), 'a change to O shows in the open Oacute at once (its old edge is now empty)');
  await page.close();
}

// --- a font of 6,000 glyphs: only the rows in view are in the DOM
{
  const page = await open('fake=sfd&many=6000');
  const t0 = Date.now();
  await page.evaluate(() => window.fakeClient.setState('live'));
  await page.waitForSelector('#glyph-grid .cell[data-name="g0"]');
  const opened = Date.now() - t0;
  const n = await page.evaluate(() => ({ count: document.getElementById('glyph-grid').dataset.count, cells: document.querySelectorAll('.cell').length }));
  check(n.count === '6000' && n.cells > 20 && n.cells < 400, `6,000 glyphs: ${n.cells} cells in the DOM (opened in ${opened} ms)`);
  await page.evaluate(() => { const g = document.getElementById('glyph-grid'); g.scrollTop = g.scrollHeight; });
  await page.waitForSelector('#glyph-grid .cell[data-name="g5999"]');
  check(!(await page.$('#glyph-grid .cell[data-name="g0"]')), 'scrolled to the end: the last glyph is drawn, the first left the DOM');
  await page.close();
}

await browser.close();
finish();
