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
