// Prints Ensemble's benchmark figures beside those of the peers (Yjs,
// Automerge, Loro) with the ratios, and checks the targets of the
// foundation workloads. Input: two JSON files (bench_core, peers.mjs).
import { readFileSync } from 'node:fs';

const [coreFile, peersFile] = process.argv.slice(2);
if (!coreFile || !peersFile) {
  console.error('usage: node bench/report.mjs CORE.json PEERS.json');
  process.exit(2);
}
const core = JSON.parse(readFileSync(coreFile, 'utf8')).ensemble;
const peers = JSON.parse(readFileSync(peersFile, 'utf8'));
const names = ['yjs', 'automerge', 'loro', 'loro_tree'].filter((n) => peers[n]);

const fmt = (v) => {
  if (v === undefined || v === null) return '—';
  if (typeof v !== 'number') return String(v);
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toPrecision(3);
};
// ratio > 1 means Ensemble is better, whichever way "better" points
const ratio = (ours, theirs, higherIsBetter) => {
  if (typeof ours !== 'number' || typeof theirs !== 'number' || theirs === 0 || ours === 0) return '—';
  const r = higherIsBetter ? ours / theirs : theirs / ours;
  return `${r >= 100 ? Math.round(r) : r.toFixed(1)}×`;
};

const rows = [
  ['W1', 'local txn/s', 'local_tps', true],
  ['W1', 'remote txn/s', 'remote_tps', true],
  ['W1', 'bytes/txn', 'bytes_per_txn', false],
  ['W2', 'seconds (count)', 'seconds', false],
  ['W2', 'memory growth B', 'mem_growth_bytes', false],
  ['W3', 'encode s', 'encode_s', false],
  ['W3', 'decode s', 'decode_s', false],
  ['W3', 'decode + read all s', 'decode_read_all_s', false],
  ['W3', 'snapshot bytes', 'bytes', false],
  ['W4', 'undo/s', 'undo_tps', true],
  ['W4', 'redo/s', 'redo_tps', true],
];

const header = ['workload', 'measure', 'ensemble', ...names.flatMap((n) => [n, 'ratio'])];
const table = [header];
for (const [w, label, key, higher] of rows) {
  const ours = core[w]?.[key];
  const line = [w, label, fmt(ours)];
  for (const n of names) {
    const p = peers[n][w];
    if (!p || p.skipped) {
      line.push(p?.skipped ? 'skipped' : '—', '');
      continue;
    }
    let theirs = p[key];
    // W2 counts may differ (slow peers run fewer): compare per overwrite
    if (w === 'W2' && key === 'seconds' && p.count !== core.W2.count) {
      line.push(`${fmt(theirs)} (${fmt(p.count)})`, ratio(ours / core.W2.count, theirs / p.count, false));
      continue;
    }
    line.push(key === 'seconds' ? `${fmt(theirs)} (${fmt(p.count)})` : fmt(theirs), ratio(ours, theirs, higher));
  }
  table.push(line);
}
const widths = header.map((_, i) => Math.max(...table.map((r) => String(r[i] ?? '').length)));
for (const [i, r] of table.entries()) {
  console.log(r.map((c, j) => String(c ?? '').padEnd(widths[j])).join('  '));
  if (i === 0) console.log(widths.map((wd) => '-'.repeat(wd)).join('  '));
}
console.log('ratio: how many times better Ensemble is (higher throughput, or lower time/size/memory)');

// Targets of the foundation issue.
const checks = [];
const y = peers.yjs;
if (y?.W1 && !y.W1.skipped) {
  checks.push(['W1 local ≥ 10× Yjs', core.W1.local_tps / y.W1.local_tps, 10]);
  checks.push(['W1 remote ≥ 10× Yjs', core.W1.remote_tps / y.W1.remote_tps, 10]);
}
checks.push(['W2 memory growth < 1 KB', core.W2.mem_growth_bytes < 1024 ? 1 : 0, 1, `${core.W2.mem_growth_bytes} B`]);
// The equivalent of Ensemble's document in Loro is the LoroTree (objects
// with ids, parents, ordered movable children); its import is eager. Loro's
// list-of-maps form imports lazily (state decoded on first read), so for it
// the comparable figure is decode + read all.
const lt = peers.loro_tree?.W3;
if (typeof lt?.decode_s === 'number') checks.push(['W3 decode ≥ 5× Loro importing the equivalent tree', lt.decode_s / core.W3.decode_s, 5]);
const ll = peers.loro?.W3;
if (typeof ll?.decode_read_all_s === 'number')
  checks.push(['W3 decode + read all ≥ 5× Loro list import + read all', ll.decode_read_all_s / core.W3.decode_read_all_s, 5]);
if (typeof ll?.decode_s === 'number')
  console.log(`\nnote: Loro's list form imports lazily: import alone ${fmt(ll.decode_s)} s against Ensemble's full decode ${fmt(core.W3.decode_s)} s (${ratio(core.W3.decode_s, ll.decode_s, false)})`);
let failed = 0;
console.log('\ntargets:');
for (const [label, value, need, shown] of checks) {
  const ok = value >= need;
  failed += ok ? 0 : 1;
  console.log(`  ${ok ? 'met    ' : 'NOT MET'}  ${label}: ${shown ?? value.toFixed(1) + '×'}`);
}
process.exitCode = failed ? 1 : 0;
