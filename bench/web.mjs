// The browser benchmark (make bench): a browser's edit to another browser's screen (p50, p99) beside a
// C client's round trip in the same run, and the time to open a large font's glyph grid in a page,
// first in a fresh page and then warm (reloaded). Usage: node bench/web.mjs BUILD FONT.sfd [--quick]
// Needs the npm packages of tests/browser (npm ci there) and Debian's chromium. Prints JSON lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { launch } from '../tests/browser/lib.mjs';
import { serve, stop } from '../tests/browser/session.mjs';

const [build, font] = process.argv.slice(2).map(p => path.resolve(p));
const quick = process.argv.includes('--quick');
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(build, 'ensemble');
if (!fs.existsSync(path.join(build, 'web/ensemble.wasm'))) { console.error('browser benchmark skipped: no build/web/ensemble.wasm'); process.exit(77); }

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench_web.'));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))]; };
const browser = await launch();
const procs = [];

async function page(web, ctx) {
  const c = ctx || await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const p = await c.newPage();
  await p.goto(web);
  await p.waitForFunction(() => window.ensembleTest?.state?.() === 'live' && window.ensembleTest.kind(), null, { timeout: 60000 });
  return p;
}

// --- edit to screen: A moves a shape, B's MutationObserver sees the element change in its DOM.
// The session's log on tmpfs and on disk, as bench_session's C round trip ("ensemble" and
// "ensemble_disk"): the same work done the same way, the disk adding one fsync per commit.
async function editPath(storage, dir) {
  const file = path.join(dir, 'drawing.svg');
  fs.copyFileSync(path.join(src, 'tests/resources/drawings/adwaita/go-home-symbolic.svg'), file);
  const s = await serve(bin, file);
  procs.push(s.proc);
  const A = await page(s.web), B = await page(s.web);
  const id = await A.evaluate(() => Array.from(document.querySelectorAll('#drawing svg [data-ens-id]')).find(e => e.localName === 'path').dataset.ensId);
  await B.evaluate(id => {
    // the element is replaced by each render: watch the drawing, note when the id shows new text
    window.benchSeen = [];
    let last = document.querySelector(`#drawing [data-ens-id="${id}"]`).outerHTML;
    new MutationObserver(() => {
      const el = document.querySelector(`#drawing [data-ens-id="${id}"]`);
      if (el && el.outerHTML !== last) { last = el.outerHTML; window.benchSeen.push(performance.timeOrigin + performance.now()); }
    }).observe(document.getElementById('drawing'), { childList: true, subtree: true, attributes: true });
  }, id);
  const n = quick ? 50 : 300, lat = [];
  for (let i = 0; i < n; i++) {
    const t0 = await A.evaluate(id => { const t = performance.timeOrigin + performance.now(); window.ensembleTest.client.svgTranslate([id], 1, 0); return t; }, id);
    await B.waitForFunction(k => window.benchSeen.length > k, i, { timeout: 10000, polling: 'raf' });
    const t1 = await B.evaluate(k => window.benchSeen[k], i);
    lat.push(t1 - t0);
  }
  // the first edit of two freshly opened pages is what a person waits for; the rest is warm
  const warmLat = lat.slice(1);
  console.log(JSON.stringify({ bench: 'web_edit_to_screen', storage, n, first_ms: +lat[0].toFixed(2),
                               p50_ms: +pct(warmLat, 50).toFixed(2), p99_ms: +pct(warmLat, 99).toFixed(2) }));
  // Beside it, in the same pages: the browser's own round trip (an edit until the server's ack
  // reaches it; no drawing), and the wait for the next frame, which the receiving page's redraw
  // cannot skip (the floor the rendering adds).
  const rtt = await A.evaluate(async ([id, n]) => {
    // polled through a MessageChannel: nested setTimeout(0) is clamped to 4 ms by the browser
    const c = window.ensembleTest.client, out = [], ch = new MessageChannel();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      c.svgTranslate([id], -1, 0);
      await new Promise(r => {
        ch.port1.onmessage = () => (c.pending() === 0 ? r() : ch.port2.postMessage(0));
        ch.port2.postMessage(0);
      });
      out.push(performance.now() - t0);
    }
    return out;
  }, [id, n]);
  console.log(JSON.stringify({ bench: 'web_client_rtt', storage, n, first_ms: +rtt[0].toFixed(2),
                               p50_ms: +pct(rtt.slice(1), 50).toFixed(2), p99_ms: +pct(rtt.slice(1), 99).toFixed(2) }));
  const frame = await B.evaluate(async n => {
    const out = [];
    for (let i = 0; i < n; i++) {
      await new Promise(r => setTimeout(r, Math.random() * 20));
      const t0 = performance.now();
      await new Promise(r => requestAnimationFrame(r));
      out.push(performance.now() - t0);
    }
    return out;
  }, quick ? 50 : 200);
  console.log(JSON.stringify({ bench: 'web_next_frame_wait', n: frame.length, p50_ms: +pct(frame, 50).toFixed(2), p99_ms: +pct(frame, 99).toFixed(2) }));
  await A.context().close();
  await B.context().close();
  await stop(s.proc);

  // --- a C client's round trip in the same run (bench_session, one client, no encryption)
  const out = execFileSync(path.join(build, 'bench_session'), ['--quick', '--only', 'rtt1', '--system', storage === 'disk' ? 'ensemble_disk' : 'ensemble'], { encoding: 'utf8' });
  const r = out.split('\n').filter(Boolean).map(l => JSON.parse(l)).find(r => r.curve === 0 && r.k === 1);
  if (r) console.log(JSON.stringify({ bench: 'c_client_rtt', storage, n: r.n, p50_ms: r.p50_us / 1000, p99_ms: r.p99_us / 1000 }));
}

await echoFloor(quick ? 50 : 300);
const shm = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/bench_web.') : null;
if (shm) await editPath('tmpfs', shm);
await editPath('disk', tmp);
if (shm) fs.rmSync(shm, { recursive: true, force: true });

// A page's WebSocket round trip to a plain echo server (npm ws, in node): what any browser client's
// round trip costs before a server does anything (the browser's network process, two sockets, the
// page's event loop), the floor under web_client_rtt.
async function echoFloor(n) {
  let WebSocketServer;
  try { ({ WebSocketServer } = createRequire(path.join(src, 'tests/web/'))('ws')); } catch { return; }
  const http = await import('node:http');
  const srv = http.createServer((q, res) => { res.setHeader('content-type', 'text/html'); res.end('<!doctype html><title>echo</title>'); });
  const wss = new WebSocketServer({ server: srv, perMessageDeflate: false });
  wss.on('connection', ws => ws.on('message', d => ws.send(d)));
  await new Promise(r => srv.listen(0, '127.0.0.1', r));
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto(`http://127.0.0.1:${srv.address().port}/`);
  const ms = await p.evaluate(([port, n]) => new Promise(res => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    ws.binaryType = 'arraybuffer';
    const out = [], msg = new Uint8Array(64);
    let t0 = 0;
    const send = () => { t0 = performance.now(); ws.send(msg); };
    ws.onopen = send;
    ws.onmessage = () => { out.push(performance.now() - t0); if (out.length === n) { ws.close(); res(out); } else send(); };
  }), [srv.address().port, n]);
  console.log(JSON.stringify({ bench: 'browser_ws_echo_floor', n, first_ms: +ms[0].toFixed(2),
                               p50_ms: +pct(ms.slice(1), 50).toFixed(2), p99_ms: +pct(ms.slice(1), 99).toFixed(2) }));
  await ctx.close();
  wss.close();
  srv.close();
}

async function receiveFloor(bytes) {
  let WebSocketServer;
  try { ({ WebSocketServer } = createRequire(path.join(src, 'tests/web/'))('ws')); } catch { return; }
  const chunk = 256 * 1024, count = Math.ceil(bytes / chunk);
  const http = await import('node:http');
  const srv = http.createServer((q, res) => { res.setHeader('content-type', 'text/html'); res.end('<!doctype html><title>floor</title>'); });
  const wss = new WebSocketServer({ server: srv, perMessageDeflate: false });
  wss.on('connection', ws => { const b = Buffer.alloc(chunk, 7); for (let i = 0; i < count; i++) ws.send(b); });
  await new Promise(r => srv.listen(0, '127.0.0.1', r));
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto(`http://127.0.0.1:${srv.address().port}/`);
  const ms = [];
  for (let k = 0; k < (quick ? 3 : 5); k++)
    ms.push(await p.evaluate(([port, count]) => new Promise(res => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
      ws.binaryType = 'arraybuffer';
      const t0 = performance.now();
      let n = 0;
      ws.onmessage = () => { if (++n === count) { res(performance.now() - t0); ws.close(); } };
    }), [srv.address().port, count]));
  console.log(JSON.stringify({ bench: 'browser_receive_floor', bytes: count * chunk, messages: count,
                               first_ms: +ms[0].toFixed(1), p50_ms: +pct(ms.slice(1), 50).toFixed(1) }));
  await ctx.close();
  wss.close();
  srv.close();
}

// --- the glyph grid of a large font: fresh page, then warm (reload)
{
  const file = path.join(tmp, path.basename(font));
  fs.copyFileSync(font, file);
  const s = await serve(bin, file);
  procs.push(s.proc);
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const p = await ctx.newPage();
  const open = async load => {
    const t0 = Date.now();
    await load();
    // when the document (the snapshot, decoded by the compiled client) is in the page
    await p.waitForFunction(() => window.ensembleTest?.state?.() === 'live' && window.ensembleTest.kind(), null, { timeout: 120000, polling: 'raf' });
    const live = Date.now() - t0;
    await p.waitForFunction(() => +document.getElementById('glyph-grid')?.dataset.drawn > 0, null, { timeout: 120000, polling: 'raf' });
    return { ms: Date.now() - t0, live, glyphs: +(await p.getAttribute('#glyph-grid', 'data-count')) };
  };
  const fresh = await open(() => p.goto(s.web));
  const warm = [], warmLive = [];
  for (let i = 0; i < (quick ? 2 : 5); i++) {
    const w = await open(() => p.reload());
    warm.push(w.ms);
    warmLive.push(w.live);
  }
  // live: until the document is in the page (load, connect, snapshot, decode); the rest is the grid
  console.log(JSON.stringify({ bench: 'web_glyph_grid_open', font: path.basename(font), glyphs: fresh.glyphs,
                               fresh_ms: fresh.ms, fresh_live_ms: fresh.live, warm_p50_ms: pct(warm, 50),
                               warm_live_p50_ms: pct(warmLive, 50) }));
  // Beside it, a C client joining a session of the same font (the same snapshot, decoded by the
  // same library, without a page around it: no encryption, the log on tmpfs)
  {
    const out = execFileSync(path.join(build, 'bench_session'), ['--quick', '--only', 'join', '--font', file], { encoding: 'utf8' });
    const r = out.split('\n').filter(Boolean).map(l => JSON.parse(l)).find(r => r.bench === 'join' && r.curve === 0);
    if (r) console.log(JSON.stringify({ bench: 'c_client_join', font: path.basename(font), n: r.n, snapshot_bytes: r.snapshot_bytes, p50_ms: r.p50_ms }));
    // and the browser's own share of it: the same bytes in the server's snapshot chunks (256 KiB)
    // from a plain WebSocket server (npm ws) to a page that does nothing with them
    if (r) await receiveFloor(r.snapshot_bytes);
  }
  // Beside it, FontForge opening the same file (what its font view waits for before it draws):
  // a fresh process that opens it once (python, the module, the file), then the open alone,
  // warm, in one process.
  try {
    const py = code => execFileSync('/usr/bin/python3', ['-c', code, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const t0 = Date.now();
    py('import fontforge, sys; fontforge.open(sys.argv[1])');
    const freshFF = Date.now() - t0;
    const out = py(`import fontforge, time, sys
ts = []
for i in range(${quick ? 3 : 6}):
    t = time.perf_counter(); f = fontforge.open(sys.argv[1]); ts.append((time.perf_counter() - t) * 1000); f.close()
ts = sorted(ts[1:])
print(ts[len(ts) // 2])`);
    console.log(JSON.stringify({ bench: 'fontforge_open', font: path.basename(font), fresh_process_ms: freshFF,
                                 warm_p50_ms: +(+out.trim()).toFixed(1) }));
  } catch { console.error('FontForge comparison skipped: no python3-fontforge'); }
  await stop(s.proc);
}

await browser.close();
for (const pr of procs) await stop(pr);
fs.rmSync(tmp, { recursive: true, force: true });
