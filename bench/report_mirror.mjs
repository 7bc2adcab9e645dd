// Prints the file mirror's cost per save (bench_mirror) beside FontForge's
// own save of the same font (bench/peers/fontforge_save.py), first save of
// a fresh process and warm, with the ratio mirror ÷ FontForge.
// usage: node bench/report_mirror.mjs MIRROR.json FONTFORGE.json
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const [ours, theirs] = process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, 'utf8')));
if (!ours || !theirs) {
  console.error('usage: node bench/report_mirror.mjs MIRROR.json FONTFORGE.json');
  process.exit(2);
}
const ms = (s) => (s * 1e3).toFixed(1);
const rows = [['font', 'MB', 'first save', 'FontForge', 'ratio', 'warm save', 'FontForge', 'ratio', 'of which parse',
  'keep (join)', 'kept MB', 'versions', 'held MB']];
for (const [path, e] of Object.entries(ours.mirror)) {
  const f = theirs.fontforge[path];
  if (!f) continue;
  rows.push([basename(path), (e.file_bytes / 1e6).toFixed(1), ms(e.first_save_s), ms(f.first_save_s),
    `${(e.first_save_s / f.first_save_s).toFixed(1)}×`, ms(e.warm_save_s), ms(f.warm_save_s),
    `${(e.warm_save_s / f.warm_save_s).toFixed(1)}×`, ms(e.warm_parse_s), ms(e.warm_keep_s),
    (e.kept_bytes / 1e6).toFixed(1), e.versions, (e.held_bytes / 1e6).toFixed(1)]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
for (const [i, r] of rows.entries()) {
  console.log(r.map((c, j) => String(c).padEnd(widths[j])).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
console.log('times in ms. save: ens_mirror_save of an editor\'s save that changed one glyph while a collaborator');
console.log('  changed another (the file read, parsed, its base picked, merged three ways onto the session, sent);');
console.log('  first: the first save of the process; warm: the median of the later ones.');
console.log('FontForge: font.save() of the same font kept open, one glyph changed each time (first, median).');
console.log('ratio: mirror ÷ FontForge (how many FontForge saves one mirrored save costs).');
console.log('keep (join): what `ensemble join` adds to keep the save beside the file (encoded, written, fsynced).');
console.log('held MB: the heap the mirror\'s versions hold after the rounds (snapshots, fingerprints, decoded copies).');
