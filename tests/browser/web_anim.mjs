// The animation view, live: two browser pages and a native client (`ensemble join --file`) on the
// animation Ensemble makes of tests/resources/tupi/tweens.tup (14 layers, a tween of each kind).
// A page drags a keyframe while the other shifts a layer: both end with the server's document,
// the player draws what the document says, each page's undo takes back its own drag only, a layer
// one page selects and its pointer show in the other, a refused drag sends nothing. Then a corpus
// animation (the Lottie docs' bouncy ball) plays frame by frame.
// Screenshots: BUILD/browser-shots/anim-*.png.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { check, finish, shot, until } from './lib.mjs';
import { serve, join, status, stop, converged, liveTest } from './session.mjs';

const build = process.argv[2];
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(build, 'ensemble');
for (const f of ['web/index.html', 'web/ensemble.wasm', 'web/vendor/lottie_light.min.js']) {
  if (!fs.existsSync(path.join(build, f))) { console.log(`skipped: no ${f} in the build (emscripten or npm ci in vendor/web missing?)`); process.exit(77); }
}
const { tmp, procs, browser, cleanup } = await liveTest('web_anim');
async function openPage(web) {
  const ctx = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await ctx.newPage();
  page.on('pageerror', e => check(false, 'page error: ' + e.message));
  await page.goto(web);
  return page;
}
const live = page => until(() => page.evaluate(() => window.ensembleTest?.state?.() === 'live' && window.ensembleTest.kind() === 'lottie' &&
                                                    !!document.querySelector('#anim-player svg')), 20000);
const myName = page => page.textContent('#people li.me .person-name');
// the keyframe times a page's timeline shows on a property's row
const keysOn = (page, address) => page.evaluate(a => Array.from(document.querySelectorAll(`.tl-prop[data-address="${CSS.escape(a)}"] .tl-key`), k => Number(k.dataset.t)), address);
// the x of frame f on a row's track (the view rounds the mouse to the nearest frame)
async function frameX(page, rowSelector, f) {
  const r = await page.evaluate(sel => {
    const t = document.querySelector(sel + ' .tl-track').getBoundingClientRect();
    const m = window.ensembleTest.view().model;
    return { left: t.left, width: t.width, ip: m.ip, op: m.op, y: t.top + t.height / 2 };
  }, rowSelector);
  return { x: r.left + ((f - r.ip) / (r.op - r.ip)) * r.width, y: r.y };
}
async function drag(page, from, to) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  for (let i = 1; i <= 6; i++) await page.mouse.move(from.x + (to.x - from.x) * i / 6, from.y);
  await page.mouse.up();
}
async function dragKey(page, address, t, f) {
  const row = `.tl-prop[data-address="${address}"]`;
  const k = await page.locator(`${row} .tl-key[data-t="${t}"]`).boundingBox();
  await drag(page, { x: k.x + k.width / 2, y: k.y + k.height / 2 }, await frameX(page, row, f));
}
async function shiftLayer(page, address, frames) {
  const row = `.tl-layer[data-address="${address}"]`;
  const b = await page.locator(`${row} .tl-bar`).boundingBox();
  const a = await frameX(page, row, 0), c = await frameX(page, row, frames);
  const x = b.x + Math.min(8, b.width / 2);
  await drag(page, { x, y: b.y + b.height / 2 }, { x: x + (c.x - a.x), y: 0 });
}
// the player's drawing at a frame (the slider is the view's own control), without the ids the
// player numbers anew each time it loads the document
async function drawnAt(page, f) {
  await page.evaluate(f => { const s = document.getElementById('anim-slider'); s.value = String(f); s.dispatchEvent(new Event('input')); }, f);
  return page.evaluate(() => document.querySelector('#anim-player svg').innerHTML.replace(/__lottie_element_\d+/g, 'ID'));
}

// --- two pages and a native client on the Tupi tweens
{
  const file = path.join(tmp, 'tweens.json');
  execFileSync(bin, ['import', path.join(src, 'tests/resources/tupi/tweens.tup'), '-o', file], { stdio: 'ignore' });
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const s = await serve(bin, file);
  procs.push(s.proc);
  const mirror = path.join(tmp, 'mirror.json');
  const j = join(bin, mirror, s.endpoint);
  procs.push(j.proc);
  const A = await openPage(s.web), B = await openPage(s.web);
  check(await live(A) && await live(B), 'both pages live on the animation, each with its player');
  check(await until(() => fs.existsSync(mirror), 10000), 'the native mirror wrote its file');

  // the timeline lists every layer of the file and every animated transform, read here from the file itself
  const fileProps = doc.layers.flatMap((l, i) => Object.entries(l.ks).filter(([, v]) => v && v.a === 1)
    .map(([k, v]) => [`[${i}].${k}`, v.k.map(kf => kf.t)]));
  const rows = await A.evaluate(() => ({ layers: Array.from(document.querySelectorAll('.tl-layer .tl-label'), e => e.firstChild.textContent),
                                         props: Array.from(document.querySelectorAll('.tl-prop'), e => e.dataset.address) }));
  check(JSON.stringify(rows.layers) === JSON.stringify(doc.layers.map(l => l.nm)),
        `the timeline has the file's ${doc.layers.length} layers in order`);
  let same = true;
  for (const [a, keys] of fileProps) same &&= rows.props.includes(a) && JSON.stringify(await keysOn(A, a)) === JSON.stringify(keys);
  check(same && fileProps.length === 5, `the timeline shows the file's ${fileProps.length} animated transforms with their keyframe times`);

  // presence: A selects a layer and points at the player; B sees both
  const nameA = await myName(A);
  await A.click('.tl-layer[data-address="[3]"] .tl-label');
  const stage = await A.locator('#anim-player svg').boundingBox();
  await A.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
  await A.mouse.move(stage.x + stage.width / 2 + 10, stage.y + stage.height / 2 + 5);
  check(await until(() => B.evaluate(n => document.querySelector('.tl-layer[data-address="[3]"] .tl-who')?.textContent === n, nameA), 5000),
        `A's selected layer is marked with A's name (${nameA}) in B's timeline`);
  check(await until(() => B.evaluate(n => Array.from(document.querySelectorAll('.anim-stage .overlay .cursor')).some(c => c.textContent === n), nameA), 5000),
        'A\'s pointer over the player shows in B\'s page');

  // at once: A drags the fade's keyframe from 4 to 2, B shifts the spin layer 2 frames later
  const before2 = await drawnAt(B, 2);
  await Promise.all([dragKey(A, '[5].o', 4, 2), shiftLayer(B, '[2]', 2)]);
  let c = await converged(s.web, [A, B]);
  check(c.ok, `A and B converge on the server's hash ${c.st.hash} (head ${c.st.head})`);
  for (const [p, n] of [[A, 'A'], [B, 'B']]) {
    const v = { fade: await keysOn(p, '[5].o'), spin: await keysOn(p, '[2].r') };
    check(JSON.stringify(v) === JSON.stringify({ fade: [2, 5, 6, 7, 8, 9], spin: [3, 4, 5, 6, 7, 8] }),
          `page ${n}'s timeline shows both drags: ${JSON.stringify(v)}`);
  }
  const spinA = JSON.parse(await A.evaluate(() => window.ensembleTest.client.lottieText())).layers[2];
  check(spinA.ip === 3 && spinA.op === 9, `B's shift moved the spin layer's in and out points to ${spinA.ip}..${spinA.op}`);
  check((await drawnAt(B, 2)) !== before2, 'B\'s player draws frame 2 anew (the spin layer starts later now)');
  check(await until(() => { try { const m = JSON.parse(fs.readFileSync(mirror, 'utf8')); return m.layers[2].ip === 3 && m.layers[5].ks.o.k[0].t === 2; } catch { return false; } }, 10000),
        'the native mirror\'s file has both drags');
  await shot(A, build, 'anim-a');
  await shot(B, build, 'anim-b');

  // A's undo takes back A's drag only; B's undo then B's
  await A.keyboard.press('Control+z');
  c = await converged(s.web, [A, B]);
  check(c.ok && JSON.stringify(await keysOn(B, '[5].o')) === JSON.stringify([4, 5, 6, 7, 8, 9]) &&
        JSON.stringify(await keysOn(B, '[2].r')) === JSON.stringify([3, 4, 5, 6, 7, 8]),
        'A\'s Ctrl+Z put its keyframe back at 4 and left B\'s shift');
  await B.keyboard.press('Control+z');
  c = await converged(s.web, [A, B]);
  check(c.ok && JSON.stringify(await keysOn(A, '[2].r')) === JSON.stringify([1, 2, 3, 4, 5, 6]), 'B\'s Ctrl+Z shifted the spin layer back');
  check((await drawnAt(B, 2)) === before2, 'B\'s player draws frame 2 as at the start');

  // a drag the library refuses (onto another keyframe) sends nothing and says why
  const head = (await status(s.web)).head;
  await dragKey(A, '[1].p', 0, 1);
  check(await until(() => A.evaluate(() => window.ensembleTest.undoNote() !== ''), 3000),
        `a keyframe dropped on another is refused with a note: "${await A.evaluate(() => window.ensembleTest.undoNote())}"`);
  await A.waitForTimeout(300);
  check((await status(s.web)).head === head && await A.evaluate(() => window.ensembleTest.pending()) === 0, 'and nothing was sent');
  check(JSON.stringify(await keysOn(A, '[1].p')) === JSON.stringify([0, 1, 2, 3, 4, 5]), 'the keyframe is back where it was');
  for (const p of [A, B]) await p.context().close();
  await stop(j.proc);
  await stop(s.proc);
}

// --- a corpus animation plays
const corpus = path.resolve(process.env.ENSEMBLE_CORPUS || path.join(src, '../shared/corpus'));
const ball = path.join(corpus, 'lottie/docs/docs_static_examples_bouncy_ball.json');
if (!fs.existsSync(ball)) console.log(`skipped the corpus part: no ${ball}`);
else {
  const file = path.join(tmp, 'ball.json');
  fs.copyFileSync(ball, file);
  const s = await serve(bin, file);
  procs.push(s.proc);
  const P = await openPage(s.web);
  check(await live(P), 'the bouncy ball opens in the player');
  const frames = new Set();
  for (const f of [0, 20, 45, 60]) frames.add(await drawnAt(P, f));
  check(frames.size === 4, `the player draws frames 0, 20, 45 and 60 differently (${frames.size} distinct)`);
  const ballAt = await P.evaluate(() => { const r = document.querySelector('#anim-player svg g path')?.getBoundingClientRect(); return r ? r.width * r.height : 0; });
  check(ballAt > 100, `the ball is drawn (${Math.round(ballAt)} px² at frame 60)`);
  check(JSON.stringify(await keysOn(P, '[0]/[0]/[2].p')) === '[0,60,120]' && JSON.stringify(await keysOn(P, '[0]/[0]/[2].s')) === '[55,60,65]',
        'the ball group\'s position and scale keyframes are on the timeline');
  await P.evaluate(() => document.getElementById('anim-play').click());
  const f0 = await P.textContent('#anim-frame');
  await P.waitForTimeout(400);
  check(await P.textContent('#anim-frame') !== f0, `Play advances the frame (${f0} → ${await P.textContent('#anim-frame')})`);
  await drawnAt(P, 60);
  await P.evaluate(() => document.getElementById('anim-play').click());
  await drawnAt(P, 60);
  await shot(P, build, 'anim-ball');
}

// --- an animation whose image asset and font name outside addresses: the page fetches nothing
// but its own server's files (a collaborator must not make every page call a server of theirs)
{
  const file = path.join(tmp, 'spy.json');
  const sq = { ty: 'gr', it: [{ ty: 'rc', p: { a: 0, k: [50, 50] }, s: { a: 0, k: [40, 40] }, r: { a: 0, k: 0 } },
                              { ty: 'fl', c: { a: 0, k: [0.2, 0.4, 0.8, 1] }, o: { a: 0, k: 100 } },
                              { ty: 'tr', p: { a: 1, k: [{ t: 0, s: [0, 0], o: { x: 0.5, y: 0.5 }, i: { x: 0.5, y: 0.5 } }, { t: 20, s: [40, 0] }] } }] };
  const ks = { o: { a: 0, k: 100 }, p: { a: 0, k: [0, 0] }, a: { a: 0, k: [0, 0] }, s: { a: 0, k: [100, 100] }, r: { a: 0, k: 0 } };
  fs.writeFileSync(file, JSON.stringify({
    v: '5.7.0', fr: 30, ip: 0, op: 30, w: 100, h: 100,
    assets: [{ id: 'spy', w: 10, h: 10, u: 'http://127.0.0.2:9/', p: 'spy.png', e: 0 }],
    fonts: { list: [{ fName: 'Spy', fFamily: 'Spy', fStyle: 'Regular', fPath: 'http://127.0.0.2:9/spy.css', origin: 1 }] },
    layers: [{ ty: 2, nm: 'image', refId: 'spy', ind: 1, ip: 0, op: 30, st: 0, ks },
             { ty: 4, nm: 'square', ind: 2, ip: 0, op: 30, st: 0, ks, shapes: [sq] }],
  }));
  const s = await serve(bin, file);
  procs.push(s.proc);
  const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const P = await ctx.newPage();
  const own = new URL(s.web).host, elsewhere = [];
  P.on('request', r => { if (!r.url().startsWith('data:') && new URL(r.url()).host !== own) elsewhere.push(r.url()); });
  await P.goto(s.web);
  check(await live(P), 'an animation with outside addresses opens');
  await drawnAt(P, 10);
  await P.waitForTimeout(500);
  check(elsewhere.length === 0, `the page asked nothing of any other server (${JSON.stringify(elsewhere)})`);
  check(JSON.stringify(await keysOn(P, '[1]/[0]/[2].p')) === '[0,20]', 'its square\'s keyframes are on the timeline');
  await ctx.close();
}

await cleanup();
finish();
