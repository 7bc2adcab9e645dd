// Running `ensemble serve --http` and `ensemble join --file` for the live browser tests.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { until, launch } from './lib.mjs';

// Starts serve on FILE with a free ZeroMQ port and a free HTTP port on loopback;
// resolves { proc, endpoint, web } once both addresses are printed.
export function serve(bin, file, extra = []) {
  const proc = spawn(bin, ['serve', '--bind', 'tcp://127.0.0.1:*', '--http', '127.0.0.1:0', '--quiet', ...extra, file],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stderr.on('data', d => { log += d; });
  return new Promise((resolve, reject) => {
    const out = { proc, log: () => log };
    const timer = setTimeout(() => reject(new Error('serve printed no addresses in 20 s: ' + log)), 20000);
    proc.on('exit', code => reject(new Error(`serve exited ${code}: ${log}`)));
    readline.createInterface({ input: proc.stdout }).on('line', line => {
      let m;
      if ((m = /^serving .* on (\S+)/.exec(line))) out.endpoint = m[1];
      if ((m = /^web (http\S+)/.exec(line))) out.web = m[1].replace(/\/?$/, '/');
      if (out.endpoint && out.web) { clearTimeout(timer); resolve(out); }
    });
  });
}

export function join(bin, path, endpoint) {
  const proc = spawn(bin, ['join', '--file', path, endpoint], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', d => { log += d; });
  return { proc, log: () => log };
}

export async function status(web, token) {
  const r = await fetch(new URL('status' + (token ? '?token=' + encodeURIComponent(token) : ''), web));
  return r.ok ? r.json() : { httpStatus: r.status };
}

// An editor's save: the whole file rewritten atomically.
export function saveFile(path, text) {
  fs.writeFileSync(path + '.tmp', text);
  fs.renameSync(path + '.tmp', path);
}

export function stop(p) {
  if (!p || p.exitCode !== null) return Promise.resolve();
  return new Promise(r => { p.on('exit', r); p.kill('SIGTERM'); setTimeout(() => { p.kill('SIGKILL'); r(); }, 5000); });
}

export function invite(bin, invites, name, revoke = false) {
  const args = revoke ? ['invite', '--revoke', name, '--invites', invites] : ['invite', '--invites', invites, name];
  const out = execFileSync(bin, args, { encoding: 'utf8' });
  return (/^token (\S+)/m.exec(out) || [])[1];
}

// Every page holds the server's document (its /status hash) with nothing pending, within ms;
// { ok, st } with the last /status read.
export async function converged(web, pages, ms = 20000) {
  let st;
  const ok = await until(async () => {
    st = await status(web);
    for (const p of pages) {
      const v = await p.evaluate(() => ({ h: window.ensembleTest.docHash(), n: window.ensembleTest.pending() }));
      if (v.h !== st.hash || v.n !== 0) return false;
    }
    return true;
  }, ms, 100);
  return { ok, st };
}

// What a live browser test holds: a scratch directory, the processes it starts (push them on procs),
// the browser; cleanup() stops and removes them all, and runs by itself when the test throws.
export async function liveTest(name) {
  const t = { tmp: fs.mkdtempSync(path.join(os.tmpdir(), name + '.')), procs: [], browser: null };
  t.cleanup = async () => {
    await t.browser?.close().catch(() => {});
    for (const p of t.procs) await stop(p);
    fs.rmSync(t.tmp, { recursive: true, force: true });
  };
  process.on('uncaughtException', async e => { console.error('FAIL: ' + (e.stack || e)); await t.cleanup(); process.exit(1); });
  t.browser = await launch();
  return t;
}
