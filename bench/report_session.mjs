// Prints the session figures of bench_session beside plain ZeroMQ (and
// plain SQLite for the durable log), with ratios and the targets: round
// trip p50 within 1.3x of the echo at K = 1 and 1.5x at K = 16, >= 100,000
// durable transactions/s on disk, >= 1,000,000 fan-out deliveries/s at
// K = 16, a join on DejaVuSansMono.sfd under 100 ms.
// Input: the JSON lines written by build/bench_session.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/report_session.mjs FILE');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim().startsWith('{'));
const rows = lines.map((l) => JSON.parse(l));
const pick = (f) => rows.filter(f);
const one = (f) => rows.find(f);
const k0 = (n) => Math.round(n / 1000).toLocaleString('en') + 'k';
const enc = (c) => (c ? 'CURVE' : 'plain');

function table(head, body) {
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  console.log(all[0].map((c, j) => String(c).padEnd(widths[j])).join('  '));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of body) console.log(r.map((c, j) => String(c).padEnd(widths[j])).join('  '));
}

const targets = [];
const target = (ok, text) => targets.push([ok, text]);

// --- round trips
const rtt = pick((r) => r.bench === 'rtt' && r.system === 'ensemble');
if (rtt.length) {
  console.log('Round trip, K clients committing at once (commit to own ack; log on tmpfs) beside a DEALER/ROUTER echo');
  const body = [];
  for (const e of rtt) {
    const z = one((r) => r.bench === 'rtt' && r.system === 'zmq' && r.curve === e.curve && r.k === e.k);
    if (!z) continue;
    const f = one((r) => r.bench === 'rtt' && r.system === 'zmq_sqlite' && r.curve === e.curve && r.k === e.k);
    const rl = one((r) => r.bench === 'rtt' && r.system === 'zmq_relay' && r.curve === e.curve && r.k === e.k);
    const pz = one((r) => r.bench === 'rtt' && r.system === 'zmq_pause' && r.curve === e.curve && r.k === e.k);
    const r50 = e.p50_us / z.p50_us, r99 = e.p99_us / z.p99_us;
    let floor = f ? ` (echo + SQLite commit: ${(f.p50_us / z.p50_us).toFixed(2)}×` : '';
    if (rl) floor += `${floor ? '; ' : ' ('}relay: ${(rl.p50_us / z.p50_us).toFixed(2)}×`;
    if (pz) floor += `${floor ? '; ' : ' ('}echo pausing 5 µs: ${(pz.p50_us / z.p50_us).toFixed(2)}×`;
    if (floor) floor += ')';
    body.push([enc(e.curve), e.k, e.msg_bytes, z.p50_us, z.p99_us, pz ? pz.p50_us : '-', f ? f.p50_us : '-', f ? f.p99_us : '-',
      rl ? rl.p50_us : '-', rl ? rl.p99_us : '-', e.p50_us, e.p99_us,
      `${r50.toFixed(2)}×`, `${r99.toFixed(2)}×`, f ? `${(e.p50_us / f.p50_us).toFixed(2)}×` : '-']);
    if (e.k === 1) target(r50 <= 1.3, `round trip p50 ≤ 1.3× echo at K=1, ${enc(e.curve)}: ${r50.toFixed(2)}×${floor}`);
    if (e.k === 16) target(r50 <= 1.5, `round trip p50 ≤ 1.5× echo at K=16, ${enc(e.curve)}: ${r50.toFixed(2)}×${floor}`);
  }
  table(['enc', 'K', 'bytes', 'echo p50 µs', 'p99', 'pausing p50', '+SQLite p50', 'p99', 'relay p50', 'p99', 'Ensemble p50 µs', 'p99',
    'p50 ratio', 'p99 ratio', 'p50 / +SQLite'], body);
  console.log('  +SQLite: the same echo, its server committing each drained batch to SQLite on tmpfs (WAL, FULL) before');
  console.log('  answering: the floor of any protocol that acknowledges after its log is durable. Ratios are to the echo.');
  console.log('  pausing (K = 1): the same echo, its client pausing 5 µs (busy, untimed) between an answer and its next send, as');
  console.log('  any client that does work between rounds does: ZeroMQ\'s I/O thread has then gone to sleep and the send wakes it.');
  console.log('  relay (K > 1): the ROUTER sends every client\'s message to every client, and a round ends when the client');
  console.log('  reads its own back: what any server that makes each change reach everyone does at the least.');
  for (const d of pick((r) => r.bench === 'rtt' && r.system === 'ensemble_disk'))
    console.log(`  with the log on disk (an fsync per commit), K=1 ${enc(d.curve)}: p50 ${d.p50_us} µs, p99 ${d.p99_us} µs`);
  console.log();
}

// --- durable throughput
const dur = pick((r) => r.bench === 'durable');
if (dur.length) {
  console.log('Durable throughput, one client (acknowledged transactions/s; ack after the group commit\'s fsync)');
  const body = [];
  for (const d of dur) {
    const f = one((r) => r.bench === 'sqlite_commit' && r.store === d.store);
    body.push([d.store, enc(d.curve), k0(d.per_sec), f ? f.per_sec.toLocaleString('en') : '-',
      f ? (d.per_sec / f.per_sec).toFixed(1) : '-']);
    if (d.store === 'disk') target(d.per_sec >= 100000, `durable ≥ 100,000/s on disk, ${enc(d.curve)}: ${Math.round(d.per_sec).toLocaleString('en')}/s`);
  }
  table(['log', 'enc', 'txn/s', 'SQLite commits/s', 'txns per fsync'], body);
  console.log('  SQLite commits/s: one row per COMMIT (WAL, synchronous=FULL) in the same directory, same run: the fsync rate');
  console.log();
}

// --- fan-out
const fan = pick((r) => r.bench === 'fanout' && r.system === 'ensemble');
if (fan.length) {
  console.log('Fan-out: one writer, K receivers each applying every transaction (deliveries = transactions × K per second)');
  const body = [];
  for (const e of fan) {
    const z = one((r) => r.bench === 'fanout' && r.system === 'zmq' && r.curve === e.curve && r.k === e.k);
    body.push([enc(e.curve), e.k, z ? k0(z.per_sec) : '-', k0(e.per_sec), z ? `${(e.per_sec / z.per_sec).toFixed(2)}×` : '-']);
    target(e.per_sec >= 1e6, `fan-out ≥ 1,000,000 deliveries/s at K=${e.k}, ${enc(e.curve)}: ${Math.round(e.per_sec).toLocaleString('en')}/s` +
      (z ? ` (plain ROUTER forwarding: ${Math.round(z.per_sec).toLocaleString('en')}/s)` : ''));
  }
  table(['enc', 'K', 'ROUTER forward/s', 'Ensemble/s', 'ratio'], body);
  console.log();
}

// --- join
const joins = pick((r) => r.bench === 'join');
if (joins.length) {
  if (joins[0].skipped) {
    console.log(`Join: skipped (${joins[0].skipped})`);
  } else {
    console.log('Join: ens_session_new to CONNECTED with the whole document (snapshot sent, decoded)');
    table(['font', 'enc', 'objects', 'snapshot MB', 'p50 ms', 'max ms'],
      joins.map((j) => [j.font, enc(j.curve), j.objects.toLocaleString('en'), (j.snapshot_bytes / 1e6).toFixed(1), j.p50_ms, j.max_ms]));
    for (const j of joins) target(j.p50_ms < 100, `join ${j.font} < 100 ms, ${enc(j.curve)}: p50 ${j.p50_ms} ms`);
  }
  console.log();
}

if (targets.length) {
  console.log('targets:');
  for (const [ok, text] of targets) console.log(`  ${ok ? 'met    ' : 'NOT MET'}  ${text}`);
  process.exitCode = targets.every(([ok]) => ok) ? 0 : 1;
}
