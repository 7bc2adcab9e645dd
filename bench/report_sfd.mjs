// Prints Ensemble's SFD load and save beside FontForge's for each corpus
// font, with ratios, memory, and the targets (load >= 10x, save
// >= 5x); then the first load in a fresh process beside FontForge's first
// open and the floor (targets: >= 3x FontForge, <= 3x the floor, peak
// memory <= FontForge's). Input: directory of per-font JSON files written by
// bench/run (ens-N.json, ff-N.json, cold-N.jsonl).
import { readFileSync, readdirSync } from 'node:fs';
import { join, basename } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/report_sfd.mjs DIR');
  process.exit(2);
}
const ours = {}, theirs = {};
/* first loads in fresh processes: one JSON line per process, by font */
const cold = {};
/* by font number: ens-2 before ens-10 */
const num = (f) => Number((f.match(/-(\d+)\./) || [0, 0])[1]);
for (const f of readdirSync(dir).sort((a, b) => num(a) - num(b) || a.localeCompare(b))) {
  if (/^cold-\d+\.jsonl$/.test(f)) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      for (const [path, m] of Object.entries(JSON.parse(line))) {
        const c = (cold[path] ||= { load: [], floor: [], ff: [] });
        if ('floor_wall_s' in m) c.floor.push(m);
        else if ('glyphs' in m) c.ff.push(m);
        else c.load.push(m);
      }
    }
    continue;
  }
  if (!/^(ens|ff)-\d+\.json$/.test(f)) continue; /* fontforge.log lives here too */
  const data = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  if (f.startsWith('ens-')) Object.assign(ours, data);
  else if (f.startsWith('ff-')) Object.assign(theirs, data.fontforge);
}
const ms = (s) => (s * 1e3).toFixed(1);
const mb = (b) => (b / 1e6).toFixed(1);
const rows = [['font', 'load ms', 'FontForge', 'ratio', 'floor ms', 'FF/floor', 'save ms', 'FontForge', 'ratio', 'no-sync save', 'ratio', 'in memory',
  'all-moved save', 'ratio', 'MB held', 'peak MB', 'FF peak MB']];
let worstLoad = Infinity, worstSave = Infinity, worstNosync = Infinity, worstEdited = Infinity, worstFloor = Infinity;
for (const path of Object.keys(ours)) {
  const e = ours[path], f = theirs[path];
  if (!f) continue;
  const lr = f.load_s / e.load_s, sr = f.save_s / e.save_s, er = f.save_s / e.save_edited_s;
  const fr = f.load_s / e.floor_s;
  const nr = e.save_nosync_s ? f.save_s / e.save_nosync_s : NaN;
  worstNosync = Math.min(worstNosync, nr);
  worstLoad = Math.min(worstLoad, lr);
  worstSave = Math.min(worstSave, sr);
  worstEdited = Math.min(worstEdited, er);
  worstFloor = Math.min(worstFloor, fr);
  rows.push([basename(path), ms(e.load_s), ms(f.load_s), `${lr.toFixed(1)}×`, ms(e.floor_s), `${fr.toFixed(1)}×`,
    ms(e.save_s), ms(f.save_s), `${sr.toFixed(1)}×`, ms(e.save_nosync_s || NaN), `${nr.toFixed(1)}×`, ms(e.save_mem_s), ms(e.save_edited_s), `${er.toFixed(1)}×`,
    mb(e.heap_bytes), mb(e.peak_rss_bytes), mb(f.peak_rss_bytes)]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
for (const [i, r] of rows.entries()) {
  console.log(r.map((c, j) => String(c).padEnd(widths[j])).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
console.log('ratio: FontForge time / Ensemble time (best of several runs each, same machine, same run)');
console.log('floor: reading the file, cutting it into lines and parsing every point line, building nothing');
console.log('save: to the file, with its fsync (FontForge does not sync); no-sync save: the same without the fsync,');
console.log('  the work FontForge\'s save does; in memory: the same text without the file');
console.log('all-moved save: save after one transaction moved every point (no point line can be copied as read)');
if (rows.length > 1) {
  console.log('\ntargets:');
  console.log(`  ${worstLoad >= 10 ? 'met    ' : 'NOT MET'}  load ≥ 10× FontForge on every font: worst ${worstLoad.toFixed(1)}×`);
  console.log(`  ${worstSave >= 5 ? 'met    ' : 'NOT MET'}  save ≥ 5× FontForge on every font, ours with its fsync: worst ${worstSave.toFixed(1)}×`);
  console.log(`  ${worstNosync >= 5 ? 'met    ' : 'NOT MET'}  save ≥ 5× FontForge on every font, the same work (no fsync on either side): worst ${worstNosync.toFixed(1)}×`);
  console.log(`  (save after every point moved: worst ${worstEdited.toFixed(1)}×; floor alone: worst ${worstFloor.toFixed(1)}× FontForge's load)`);
  process.exitCode = worstLoad >= 10 && worstSave >= 5 ? 0 : 1;
}

/* The first load in a fresh process: what `ensemble cat`, `serve` and every
 * mirror read pay, beside FontForge's first open and the floor. */
const min = (a, k) => Math.min(...a.map((m) => m[k]));
const max = (a, k) => Math.max(...a.map((m) => m[k]));
const crows = [['font', 'first load ms', 'CPU', 'FontForge', 'CPU', 'ratio', 'CPU', 'floor ms', 'CPU', '÷ floor', 'CPU',
  'FF ÷ floor', 'faults', 'peak MB', 'FF peak MB', 'ratio', 'warm load', 'FontForge', 'ratio']];
const worst = { r: Infinity, rc: Infinity, over: 0, overc: 0, mem: 0 };
let coldFonts = 0;
for (const path of Object.keys(cold)) {
  const c = cold[path];
  if (!c.load.length || !c.floor.length || !c.ff.length) continue;
  coldFonts++;
  const load = min(c.load, 'load_wall_s'), cpu = min(c.load, 'load_cpu_s');
  const ff = min(c.ff, 'load_wall_s'), ffc = min(c.ff, 'load_cpu_s');
  const floor = min(c.floor, 'floor_wall_s'), floorc = min(c.floor, 'floor_cpu_s');
  const mem = max(c.load, 'load_rss_growth_bytes'), ffmem = min(c.ff, 'load_rss_growth_bytes');
  const r = ff / load, rc = ffc / cpu, over = load / floor, overc = cpu / floorc, mr = mem / ffmem;
  worst.r = Math.min(worst.r, r);
  worst.rc = Math.min(worst.rc, rc);
  worst.over = Math.max(worst.over, over);
  worst.overc = Math.max(worst.overc, overc);
  worst.mem = Math.max(worst.mem, mr);
  const e = ours[path], f = theirs[path];
  crows.push([basename(path), ms(load), ms(cpu), ms(ff), ms(ffc), `${r.toFixed(1)}×`, `${rc.toFixed(1)}×`, ms(floor),
    ms(floorc), `${over.toFixed(1)}×`, `${overc.toFixed(1)}×`, `${(ff / floor).toFixed(1)}×`,
    String(max(c.load, 'load_minflt')), mb(mem), mb(ffmem), mr.toFixed(2),
    e ? ms(e.load_s) : '-', f ? ms(f.load_s) : '-', e && f ? `${(f.load_s / e.load_s).toFixed(1)}×` : '-']);
}
if (coldFonts) {
  console.log('\nFirst load in a fresh process (each figure its own process; the best time of the runs and, for');
  console.log('memory, our largest and FontForge\'s smallest):\n');
  const cw = crows[0].map((_, i) => Math.max(...crows.map((r) => String(r[i]).length)));
  for (const [i, r] of crows.entries()) {
    console.log(r.map((c, j) => String(c).padEnd(cw[j])).join('  '));
    if (i === 0) console.log(cw.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('first load: ens_sfd_read_path as the first thing a process does, wall time; CPU: user + system time');
  console.log('  of the same load; FontForge: fontforge.open in a fresh interpreter with the module loaded');
  console.log('floor: a fresh process reading the file, cutting it into lines and parsing every point line');
  console.log('peak MB: growth of the process\'s peak resident memory across the load; faults: minor page faults');
  console.log('warm: best of repeated loads in one process (the table above)');
  console.log('\ntargets (first load; wall time, CPU time beside it):');
  const ok1 = worst.r >= 3, ok2 = worst.over <= 3, ok3 = worst.mem <= 1;
  console.log(`  ${ok1 ? 'met    ' : 'NOT MET'}  ≥ 3× FontForge's first open on every font: worst ${worst.r.toFixed(1)}× (CPU ${worst.rc.toFixed(1)}×)`);
  console.log(`  ${ok2 ? 'met    ' : 'NOT MET'}  within 3× of the floor on every font: worst ${worst.over.toFixed(1)}× (CPU ${worst.overc.toFixed(1)}×)`);
  console.log(`  ${ok3 ? 'met    ' : 'NOT MET'}  peak memory no more than FontForge's on every font: worst ${worst.mem.toFixed(2)}× its peak`);
  if (!(ok1 && ok2 && ok3)) process.exitCode = 1;
}
