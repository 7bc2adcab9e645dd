// The web client's entry point: loads the wasm client, connects to the page's own server, and
// hands the document to the view that fits its kind. Undo keys and the orchestra live here.

import { TopBar } from './topbar.js';
import { Orchestra } from './orchestra.js';
import { DrawingView } from './drawing.js';
import { FontView } from './font.js';
import { AnimationView } from './animation.js';
import { installTestHook } from './testhook.js';

const bar = new TopBar();
const orchestra = new Orchestra();
const host = document.getElementById('view');
let client = null, view = null, viewKind = null, scheduled = false;

function fail(text) {
  const p = document.createElement('p');
  p.className = 'error';
  p.textContent = text;
  host.replaceChildren(p);
}

// The person's name and colour stay with the browser, not with the link.
function identity() {
  let name = localStorage.getItem('ensemble.name');
  if (!name) {
    name = 'guest-' + Math.random().toString(36).slice(2, 6);
    localStorage.setItem('ensemble.name', name);
  }
  const hue = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
  return { name, colour: hslHex(hue, 0.65, 0.45) };
}

function hslHex(h, s, l) {
  const f = n => {
    const k = (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
    const v = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255).toString(16).padStart(2, '0');
  };
  return '#' + f(0) + f(8) + f(4);
}

// Many changes in one frame are drawn once.
function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    // a view made just now has drawn the document already
    if (!ensureView()) view?.render();
    window.ensembleTest.rendered++;
  });
}

function ensureView() {
  const kind = client.kind();
  if (!kind || kind === viewKind) return false;
  view?.destroy?.();
  viewKind = kind;
  const params = new URLSearchParams(location.hash.slice(1));
  bar.setDocument(params.get('doc') || location.host, kind);
  if (kind === 'svg') view = new DrawingView(client, host, fail);
  else if (kind === 'sfd') view = new FontView(client, host);
  else if (kind === 'lottie') view = new AnimationView(client, host, fail, text => bar.note(text));
  else { view = null; fail(`A document of kind "${kind}" cannot be shown in the browser; the session goes on.`); }
  return true;
}

function onKey(e) {
  if (!client) return;
  const t = e.target;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
  const mod = e.ctrlKey || e.metaKey, k = e.key.toLowerCase();
  if (mod && k === 'z' || mod && k === 'y') {
    e.preventDefault();
    const redo = e.shiftKey || k === 'y';
    const r = redo ? client.redo() : client.undo();
    window.ensembleTest.lastUndo = r;
    if (r.note) bar.note(r.note);
    else if (!r.done) bar.note(redo ? 'Nothing to redo.' : 'Nothing to undo.');
    else bar.note('');
    schedule();
    return;
  }
  view?.key?.(e);
}

async function start() {
  const params = new URLSearchParams(location.hash.slice(1));
  const base = new URL('../', import.meta.url).href;
  let mod, EnsembleClient;
  try {
    const m = await import(new URL('ensemble-client.js', base).href);
    EnsembleClient = m.EnsembleClient;
    mod = await m.loadEnsemble(base);
  } catch (err) {
    bar.setState('failed');
    fail('The client could not be loaded: ' + err.message);
    return;
  }
  const me = identity();
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
  client = new EnsembleClient(mod, { url, token: params.get('token') || '', name: me.name, colour: me.colour });
  installTestHook(client, bar, orchestra, () => view);
  client.onstate(s => { bar.setState(s); if (s === 'live') schedule(); });
  client.onchange(ch => { orchestra.play(ch); schedule(); });
  client.onpresence(() => { bar.setPeople(client.presence(), client.site()); view?.drawPresence?.(); });
  client.ondropped(msg => bar.note('Not applied: ' + msg));
  client.onrejected(msg => { bar.setState('failed'); fail(msg); });
  bar.setState(client.state || 'connecting');
  Promise.resolve(client.connect()).catch(err => { bar.setState('failed'); fail('The client could not start: ' + err.message); });
}

document.getElementById('orchestra-toggle').addEventListener('change', e => orchestra.setOn(e.target.checked));
document.addEventListener('keydown', onKey);
window.ensembleTest = { rendered: 0 };
start();
