// Two browser pages and a native client (`ensemble join --file`, its file rewritten as an editor
// would) in one live session of a drawing and one of a font: every page ends with the server's
// document, each page's undo takes back only its own gestures and says when it skipped a
// collaborator's newer change, presence shows, a page cut off for 5 s while it edits loses
// nothing; a wrong token gets nothing of the document, a revoked one is dropped; an invited page's
// own top bar shows the invite's name; a reload keeps the page's client id, a second tab has its own.
// Screenshots: BUILD/browser-shots/session-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, finish, shot, until, drawingDiff } from './lib.mjs';
import { serve, join, status, saveFile, stop, invite, converged, liveTest } from './session.mjs';

const build = process.argv[2];
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(build, 'ensemble');
for (const f of ['web/index.html', 'web/ensemble-client.js', 'web/ensemble.wasm']) {
  if (!fs.existsSync(path.join(build, f))) { console.log(`skipped: no ${f} in the build (emscripten missing?)`); process.exit(77); }
}

const corpus = path.resolve(process.env.ENSEMBLE_CORPUS || path.join(src, '../shared/corpus'));
const gridSvg = path.join(corpus, 'svg/librsvg/rsvg/tests/fixtures/reftests/adwaita/view-app-grid-symbolic.svg');
if (!fs.existsSync(gridSvg)) { console.log(`skipped: no corpus drawing ${gridSvg}`); process.exit(77); }
const { tmp, procs, browser, cleanup } = await liveTest('web_session');

// Each page in its own context: its own storage, so its own name and client id.
async function openPage(web, hash) {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const page = await ctx.newPage();
  page.on('pageerror', e => check(false, 'page error: ' + e.message));
  await page.goto(web + '#' + hash);
  return page;
}
const T = (page, expr, arg) => page.evaluate(([e, a]) => (0, eval)(e)(a), [expr, arg]);
const hashOf = page => page.evaluate(() => window.ensembleTest?.state?.() === 'live' ? window.ensembleTest.docHash() : null);
const live = page => until(() => page.evaluate(() => window.ensembleTest?.state?.() === 'live' && !!window.ensembleTest.kind()), 20000);
const myName = page => page.textContent('#people li.me .person-name');


async function dragEl(page, id, dx, dy) {
  // an element the page has not drawn yet (its change still waiting for
  // the next frame) has no box: wait for it
  let b = null;
  for (let i = 0; i < 40 && !b; i++) {
    b = await page.locator(`#drawing [data-ens-id="${id}"]`).boundingBox();
    if (!b) await page.waitForTimeout(50);
  }
  if (!b) {
    const why = await page.evaluate(id => {
      const el = document.querySelector(`#drawing [data-ens-id="${id}"]`);
      return { elements: document.querySelectorAll('#drawing [data-ens-id]').length, found: !!el,
               html: el ? el.outerHTML.slice(0, 200) : null, error: document.querySelector('#view .error')?.textContent ?? null };
    }, id);
    throw new Error(`element ${id} cannot be dragged: ${JSON.stringify(why)}`);
  }
  const x = b.x + b.width / 2, y = b.y + b.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 1; i <= 5; i++) await page.mouse.move(x + dx * i / 5, y + dy * i / 5);
  await page.mouse.up();
}
const elHtml = (page, id) => page.evaluate(id => document.querySelector(`#drawing [data-ens-id="${id}"]`)?.outerHTML ?? null, id);
// the drawable elements of the page, in document order, without the root
const shapes = page => page.evaluate(() => Array.from(document.querySelectorAll('#drawing svg [data-ens-id]'))
  .filter(e => ['path', 'rect', 'circle', 'ellipse', 'polygon'].includes(e.localName) && e.getBBox().width > 1 && (r => document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === e)(e.getBoundingClientRect()))
  .map(e => e.getAttribute('data-ens-id')));

// --- the drawing
{
  const file = path.join(tmp, 'drawing.svg');
  fs.copyFileSync(gridSvg, file);
  const s = await serve(bin, file);
  procs.push(s.proc);
  const mirror = path.join(tmp, 'mirror.svg');
  const j = join(bin, mirror, s.endpoint);
  procs.push(j.proc);
  const A = await openPage(s.web, 'doc=drawing.svg'), B = await openPage(s.web, 'doc=drawing.svg');
  check(await live(A) && await live(B), 'both pages live on the drawing');
  check(await until(() => fs.existsSync(mirror), 10000), 'the native mirror wrote its file');
  const nameA = await myName(A), nameB = await myName(B);
  check(await until(async () => (await T(A, 'x => window.ensembleTest.presenceNames()')).includes(nameB) &&
                                 (await T(B, 'x => window.ensembleTest.presenceNames()')).includes(nameA), 5000),
        `presence: ${nameA} sees ${nameB} and ${nameB} sees ${nameA} in the top bar`);

  await A.waitForSelector('#drawing svg [data-ens-id]', { timeout: 10000 }).catch(() => {});
  const ids = await shapes(A);
  check(ids.length >= 4, `the drawing shows ${ids.length} shapes one can click`);
  const [e1, e2, e3, e4] = ids;

  // selection and pointer of A seen in B's DOM
  await A.click(`#drawing [data-ens-id="${e3}"]`);
  await A.mouse.move(300, 300); await A.mouse.move(310, 305);
  check(await until(() => B.evaluate(() => !!document.querySelector('.overlay .sel-box:not(.mine)')), 5000),
        'A\'s selection outlined in B\'s page');
  check(await until(() => B.evaluate(n => Array.from(document.querySelectorAll('.overlay .cursor')).some(c => c.textContent === n), nameA), 5000),
        'A\'s pointer shown in B\'s page with A\'s name');

  // three authors at once: A drags, B deletes, the native mirror adds a shape
  const e1Before = await elHtml(B, e1);
  // nodes of B's page that nobody edits now: they must stay the same DOM objects (the page patches)
  await B.evaluate(([e1, e4]) => {
    const q = id => document.querySelector(`#drawing [data-ens-id="${id}"]`);
    window.held = { e1: q(e1), e4: q(e4), svg: document.querySelector('#drawing > svg'), full: window.ensembleTest.view().renders.full };
  }, [e1, e4]);
  await Promise.all([
    dragEl(A, e1, 40, 25),
    (async () => { await B.click(`#drawing [data-ens-id="${e2}"]`); await B.keyboard.press('Delete'); })(),
    (async () => {
      const text = fs.readFileSync(mirror, 'utf8');
      saveFile(mirror, text.replace(/<\/svg>\s*$/, '<rect id="from-native" x="1" y="1" width="3" height="3" fill="#ff8800"/></svg>\n'));
    })(),
  ]);
  let c = await converged(s.web, [A, B]);
  check(c.ok, `A, B converge on the server's hash ${c.st.hash} (head ${c.st.head}) after three authors edit at once`);
  for (const [p, n] of [[A, 'A'], [B, 'B']]) {
    const v = await p.evaluate(([e2]) => ({ native: !!document.querySelector('#drawing #from-native'),
                                            deleted: !document.querySelector(`#drawing [data-ens-id="${e2}"]`) }), [e2]);
    check(v.native && v.deleted, `page ${n} shows the native client's shape and B's delete: ` + JSON.stringify(v));
  }
  check((await elHtml(B, e1)) !== e1Before, 'A\'s drag shows in B\'s page');
  const patchDiffs = [await drawingDiff(A), await drawingDiff(B)];
  const held = await B.evaluate(([e1, e4]) => {
    const q = id => document.querySelector(`#drawing [data-ens-id="${id}"]`), v = window.ensembleTest.view();
    return { e4: q(e4) === window.held.e4, e1: q(e1) === window.held.e1, svg: document.querySelector('#drawing > svg') === window.held.svg,
             full: v.renders.full - window.held.full, patched: v.renders.patched };
  }, [e1, e4]);
  check(held.e4 && held.e1 && held.svg && held.full === 0,
        'B\'s page patched its drawing: an untouched element, the moved one and the root are the same DOM nodes as before: ' + JSON.stringify(held));
  await shot(A, build, 'session-drawing-a');
  await shot(B, build, 'session-drawing-b');

  // A's undo takes back A's drag only: B's delete and the native shape stay
  await A.keyboard.press('Control+z');
  c = await converged(s.web, [A, B]);
  const after = await B.evaluate(([e2]) => ({ native: !!document.querySelector('#drawing #from-native'),
                                              deleted: !document.querySelector(`#drawing [data-ens-id="${e2}"]`) }), [e2]);
  check(c.ok && (await elHtml(B, e1)) === e1Before && after.native && after.deleted,
        'A\'s Ctrl+Z undid A\'s drag only (B sees e1 as before, its delete and the native shape stay)');

  // a skip: A colours e3, then B colours it; A's undo must not take B's colour away
  await A.click(`#drawing [data-ens-id="${e3}"]`);
  await A.evaluate(() => { const i = document.getElementById('fill-colour'); i.value = '#112233'; i.dispatchEvent(new Event('change')); });
  await converged(s.web, [A, B]);
  await B.click(`#drawing [data-ens-id="${e3}"]`);
  await B.evaluate(() => { const i = document.getElementById('fill-colour'); i.value = '#445566'; i.dispatchEvent(new Event('change')); });
  await converged(s.web, [A, B]);
  await A.keyboard.press('Control+z');
  const undo = await A.evaluate(() => window.ensembleTest.lastUndo);
  const note = await A.textContent('#undo-note');
  c = await converged(s.web, [A, B]);
  const fill = await B.evaluate(id => getComputedStyle(document.querySelector(`#drawing [data-ens-id="${id}"]`)).fill, e3);
  check(undo && undo.skipped >= 1 && note.length > 0, `A's undo reports the skip: ${JSON.stringify(undo)}, note "${note}"`);
  check(c.ok && /445566|rgb\(68, 85, 102\)/i.test(fill || ''), `B's newer colour stays (${fill})`);

  // A cut off for 5 s while it keeps editing
  const seenByB = await Promise.all([e3, e4].map(id => elHtml(B, id)));
  await A.evaluate(() => window.ensembleTest.cutFor(5000));
  await dragEl(A, e3, 30, 0);
  await dragEl(A, e4, 0, 30);
  await A.click(`#drawing [data-ens-id="${e4}"]`);
  await A.evaluate(() => { const i = document.getElementById('fill-colour'); i.value = '#778899'; i.dispatchEvent(new Event('change')); });
  const during = await A.evaluate(() => ({ state: document.getElementById('conn-state').textContent, pending: window.ensembleTest.pending() }));
  check(during.pending >= 3 && /reconnecting/.test(during.state), `while cut: ${JSON.stringify(during)}`);
  await B.waitForTimeout(1000);
  check((await elHtml(B, e3)) === seenByB[0], 'B has not seen A\'s offline edits during the cut');
  c = await converged(s.web, [A, B], 30000);
  check(c.ok, 'after the cut A and B converge on the server\'s hash');
  // the page draws what its client holds at its next frame
  let now = [];
  const reached = await until(async () => {
    now = await Promise.all([e3, e4].map(id => elHtml(B, id)));
    return now[0] !== seenByB[0] && now[1] !== seenByB[1] && /778899/i.test(now[1]);
  }, 3000);
  check(reached, 'all three offline edits of A reached B');
  patchDiffs.push(await drawingDiff(A), await drawingDiff(B));
  check(patchDiffs.every(d => d === ''), 'each page\'s patched drawing equals a full fresh copy of its document (after three authors, after the cut): ' + JSON.stringify(patchDiffs));
  await A.close(); await B.close();
  await stop(j.proc); await stop(s.proc);
}

// --- the font
{
  const file = path.join(tmp, 'font.sfd');
  fs.copyFileSync(path.join(src, 'tests/resources/fonts/DejaVuSans-ExtraLight-subset.sfd'), file);
  const s = await serve(bin, file);
  procs.push(s.proc);
  const mirror = path.join(tmp, 'mirror.sfd');
  const j = join(bin, mirror, s.endpoint);
  procs.push(j.proc);
  const A = await openPage(s.web, 'doc=font.sfd'), B = await openPage(s.web, 'doc=font.sfd');
  check(await live(A) && await live(B), 'both pages live on the font');
  await A.waitForSelector('#glyph-grid .cell');
  const glyphs = await A.evaluate(() => window.ensembleTest.client.glyphs());
  check((await A.getAttribute('#glyph-grid', 'data-count')) === String(glyphs.length), `the grid holds every glyph (${glyphs.length})`);
  await shot(A, build, 'session-glyph-grid');
  // composites (Agrave = A + Grave moved by 1212, 373: no contour of its own) drawn in the grid
  const ink = (page, name) => page.evaluate(n => {
    const c = document.querySelector(`.cell[data-name="${n}"] canvas`);
    if (!c) return null;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0, top = c.height, sum = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 128) { k++; sum += i; top = Math.min(top, Math.floor((i >> 2) / c.width)); }
    return { k, top, sum, draws: +c.parentNode.dataset.draws };
  }, name);
  const inkA = await ink(A, 'A'), inkAg = await ink(A, 'Agrave');
  // (Agrave reaches above the ascent, so its cell is drawn a little smaller to fit)
  check(inkA && inkAg && inkAg.k > inkA.k / 2 && inkAg.top < inkA.top,
        `the grid draws Agrave, a composite, as its A with the grave above: ${JSON.stringify({ A: inkA, Agrave: inkAg })}`);
  // B moves a point of A: A's page redraws Agrave's cell with it
  await B.evaluate(() => {
    const c = window.ensembleTest.client, on = c.glyph('A').contours[0].findIndex(p => p.on);
    c.glyphMovePoints('A', [[0, on]], -300, 0);
  });
  check(await until(async () => (await ink(A, 'Agrave')).draws > inkAg.draws, 5000), 'B\'s change to A redraws Agrave\'s cell in A\'s page');
  const inkAg2 = await ink(A, 'Agrave');
  check(inkAg2.sum !== inkAg.sum, `Agrave's cell shows the moved point (${inkAg.k} -> ${inkAg2.k} inked pixels)`);
  await shot(A, build, 'session-glyph-grid-composite-edited');
  await B.evaluate(() => window.ensembleTest.client.undo());
  check((await converged(s.web, [A, B])).ok, 'B\'s undo of its move of A converges');
  // Agrave in the editor: A and Grave drawn muted: at the middle of Grave's quadrilateral
  // (-555,1394 in Grave, moved by the reference's 1212,373) and in A's left leg
  await A.evaluate(() => window.ensembleTest.view().child.reveal('Agrave'));
  await A.click('.cell[data-name="Agrave"]');
  await A.waitForSelector('#glyph-canvas');
  const refsText = await A.textContent('.glyph-refs');
  const muted = await A.evaluate(() => {
    const ed = window.ensembleTest.view().child, dpr = window.devicePixelRatio || 1;
    const at = (x, y) => { const p = ed.toPx(x, y); return Array.from(ed.canvas.getContext('2d').getImageData(Math.round(p[0] * dpr), Math.round(p[1] * dpr), 1, 1).data); };
    return { grave: at(-555 + 1212, 1394 + 373), aLeg: at(150, 40) };
  });
  check(refsText === 'references A, Grave' && muted.grave[3] > 20 && muted.grave[3] < 120 && muted.aLeg[3] > 20 && muted.aLeg[3] < 120,
        `the editor draws Agrave's references muted: "${refsText}", ${JSON.stringify(muted)}`);
  await shot(A, build, 'session-glyph-composite');
  await A.click('button[data-act=back]');
  await A.waitForSelector('#glyph-grid .cell');
  const withPoints = await A.evaluate(gs => gs.map(g => window.ensembleTest.client.glyph(g.name)).filter(g => g.contours.length && g.contours[0].length > 3).map(g => g.name), glyphs);
  const [gA, gB] = withPoints;
  for (const [p, n] of [[A, gA], [B, gB]]) {
    await p.evaluate(n => window.ensembleTest.view().child.reveal(n), n);
    await p.click(`.cell[data-name="${n}"]`);
  }
  await A.waitForSelector('#glyph-canvas');
  await B.waitForSelector('#glyph-canvas');
  const pt = (page, x, y) => page.evaluate(([x, y]) => {
    const ed = window.ensembleTest.view().child, r = ed.canvas.getBoundingClientRect(), p = ed.toPx(x, y);
    return [r.left + p[0], r.top + p[1]];
  }, [x, y]);
  const gAbefore = await B.evaluate(n => window.ensembleTest.client.glyph(n), gA);
  const p0 = gAbefore.contours[0][0];
  const widthLine = await B.evaluate(n => window.ensembleTest.client.glyph(n).width, gB);
  const sfdText = fs.readFileSync(mirror, 'utf8');
  await Promise.all([
    (async () => { const [x, y] = await pt(A, p0.x, p0.y); await A.mouse.move(x, y); await A.mouse.down();
                   await A.mouse.move(x + 15, y - 10); await A.mouse.move(x + 30, y - 20); await A.mouse.up(); })(),
    (async () => { const [x, y] = await pt(B, widthLine, 300); await B.mouse.move(x, y); await B.mouse.down();
                   await B.mouse.move(x + 20, y); await B.mouse.move(x + 40, y); await B.mouse.up(); })(),
    (async () => saveFile(mirror, sfdText.replace(/^Width: (\d+)$/m, (m, w) => `Width: ${+w + 7}`)))(),
  ]);
  const c = await converged(s.web, [A, B]);
  check(c.ok, `A, B converge on the font's server hash ${c.st.hash} with the native mirror editing`);
  const gAafter = await B.evaluate(n => window.ensembleTest.client.glyph(n), gA);
  const gBafter = await A.evaluate(n => window.ensembleTest.client.glyph(n), gB);
  check(gAafter.contours[0][0].x !== p0.x && gBafter.width > widthLine, `B sees A's point move, A sees B's width (${widthLine} -> ${gBafter.width})`);
  await shot(A, build, 'session-glyph-editor');
  await A.keyboard.press('Control+z');
  await converged(s.web, [A, B]);
  const undone = await B.evaluate(n => window.ensembleTest.client.glyph(n), gA);
  const keptW = await B.evaluate(n => window.ensembleTest.client.glyph(n).width, gB);
  check(undone.contours[0][0].x === p0.x && keptW === gBafter.width, 'A\'s undo takes back its point move, B\'s width stays');
  await A.close(); await B.close();
  await stop(j.proc); await stop(s.proc);
}

// --- tokens
{
  const file = path.join(tmp, 'secret.svg');
  fs.copyFileSync(path.join(src, 'tests/resources/drawings/adwaita/daytime-sunset-symbolic.svg'), file);
  const invites = path.join(tmp, 'invites');
  const token = invite(bin, invites, 'alice');
  check(!!token, 'ensemble invite printed a token');
  const s = await serve(bin, file, ['--invites', invites]);
  procs.push(s.proc);
  const bad = await openPage(s.web, 'token=' + 'x'.repeat(43));
  await bad.waitForTimeout(3000);
  const seen = await bad.evaluate(() => ({ kind: window.ensembleTest?.kind?.() ?? null, els: document.querySelectorAll('[data-ens-id]').length,
                                           state: window.ensembleTest?.state?.() }));
  check(seen.kind === null && seen.els === 0 && seen.state !== 'live', 'a wrong token gets nothing of the document: ' + JSON.stringify(seen));
  const good = await openPage(s.web, 'token=' + token);
  check(await live(good), 'a valid token joins');
  const chosen = await good.evaluate(() => localStorage.getItem('ensemble.name'));
  check(await until(async () => (await myName(good)) === 'alice', 5000) && chosen !== 'alice',
        `the page's own top bar shows the invite's name (alice), not the one it chose (${chosen})`);
  // its client id across a reload; a second tab of the same browser has its own
  const idOf = p => p.evaluate(() => ({ id: window.ensembleTest.client.clientId(), site: window.ensembleTest.site() }));
  const before = await idOf(good);
  await good.reload();
  check(await live(good), 'the reloaded page joins again');
  const after = await idOf(good);
  check(!!before.id && after.id === before.id && after.site === before.site,
        `a reload keeps the client id and its site (${before.site}, then ${after.site})`);
  const tab2 = await good.context().newPage();
  await tab2.goto(s.web + '#token=' + token);
  check(await live(tab2), 'a second tab of the same browser joins');
  const t2 = await idOf(tab2);
  check(!!t2.id && t2.id !== before.id && t2.site !== before.site,
        `a second open tab draws its own client id (site ${t2.site})`);
  await tab2.close(); // the first tab in front again (a hidden one draws no frame for its screenshot)
  const bobToken = invite(bin, invites, 'bob');
  const other = await openPage(s.web, 'token=' + bobToken);
  check(await live(other), 'a second invite joins');
  check(await until(async () => (await other.evaluate(() => window.ensembleTest.presenceNames())).includes('alice'), 5000),
        'the others see the person by the invite\'s name (alice), whatever the page calls itself');
  invite(bin, invites, 'alice', true);
  check(await until(() => good.evaluate(() => window.ensembleTest.state() !== 'live'), 5000), 'a revoked token is dropped from the live session');
  await shot(good, build, 'session-revoked');
  await stop(s.proc);
}

await cleanup();
finish();
