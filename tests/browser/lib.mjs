// Shared by the browser tests: launching Debian's chromium, checks that count, screenshots.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

export async function launch() {
  return chromium.launch({
    executablePath: process.env.ENSEMBLE_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'],
  });
}

let checks = 0, failures = 0;
export function check(ok, what) {
  checks++;
  if (!ok) { failures++; console.error('FAIL: ' + what); }
  else console.log('ok: ' + what);
}
export function finish() {
  console.log(`${checks - failures}/${checks} checks passed`);
  process.exit(failures ? 1 : 0);
}

export async function shot(page, build, name) {
  const dir = path.join(build, 'browser-shots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name + '.png') });
}

// Polls fn() in node until it is truthy or ms pass; returns its last value.
export async function until(fn, ms = 10000, step = 50) {
  const end = Date.now() + ms;
  let v;
  while (!(v = await fn()) && Date.now() < end) await new Promise(r => setTimeout(r, step));
  return v;
}

// Does the page's drawing (patched change after change) equal a full fresh copy of the client's
// document? Elements, attributes (in any order) and text compared; '' when equal, else the first
// difference.
export const drawingDiff = page => page.evaluate(() => {
  const v = window.ensembleTest.view(), live = v.svg, fresh = v.freshCopy();
  const attrs = e => Array.from(e.attributes, a => `${a.namespaceURI}|${a.localName}=${a.value}`).sort().join(' ');
  const walk = (a, b, at) => {
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return `${at}: ${a.nodeName} / ${b.nodeName}`;
    if (a.nodeType !== 1) return a.data === b.data ? '' : `${at}: text "${a.data}" / "${b.data}"`;
    if (attrs(a) !== attrs(b)) return `${at}: [${attrs(a)}] / [${attrs(b)}]`;
    if (a.childNodes.length !== b.childNodes.length) return `${at}: ${a.childNodes.length} / ${b.childNodes.length} children`;
    for (let i = 0; i < a.childNodes.length; i++) {
      const d = walk(a.childNodes[i], b.childNodes[i], `${at}/${b.childNodes[i].nodeName}[${i}]`);
      if (d) return d;
    }
    return '';
  };
  return walk(live, fresh, 'svg');
});
