// Prints Ensemble's SFD load and save beside FontForge's for each corpus
// font, with ratios, memory, and the targets (load >= 10x, save
// >= 5x). Input: directory of per-font JSON files written by bench/run.
import { readFileSync, readdirSync } from 'node:fs';
import { join, basename } from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/report_sfd.mjs DIR');
  process.exit(2);
}
const ours = {}, theirs = {};
for (const f of readdirSync(dir).sort()) {
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
