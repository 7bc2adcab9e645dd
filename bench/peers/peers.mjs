// Peer CRDT benchmark: Yjs, Automerge and Loro on the four workloads that the
// C library's own bench runs (W1 single-property transactions with update
// bytes, W2 one-million overwrites, W3 100,100-object snapshot, W4 undo/redo).
//
//   node --expose-gc bench/peers/peers.mjs [--quick] [--only yjs,automerge,loro,loro_tree]
//
// Progress goes to stderr; exactly one JSON object goes to stdout at the end.
// Each (library, workload) runs in its own child Node process, so that the
// V8 heap and the wasm linear memory of one measurement are not inherited by
// the next, and so that the parent can kill a run that overruns its library's
// time budget. Every figure printed is measured; nothing is extrapolated.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = fileURLToPath(import.meta.url);
const LIBS = ["yjs", "automerge", "loro", "loro_tree"];
const WORKLOADS = ["W1", "W2", "W3", "W4"];

const log = (...a) => process.stderr.write(a.join(" ") + "\n");
const now = () => performance.now();
const round = (x, d = 3) => Number(x.toFixed(d));

// ---------------------------------------------------------------------------
// Sizes. --quick divides every count by 10.
function sizes(quick) {
  const q = quick ? 10 : 1;
  return {
    w1Objects: 10000 / q,            // objects of 10 props each
    w1Txns: 10000 / q,               // single-property transactions
    w2Ladder: quick ? [1000, 10000, 100000] : [10000, 100000, 1000000],
    w3Groups: 100 / q,               // groups under the root
    w3Children: 1000,                // children per group
    w4Ladder: quick ? [100, 1000] : [1000, 10000],
  };
}

// Per-library wall-clock budgets (seconds) for all of its workloads together,
// including child start-up and untimed document building. Time a library
// leaves unused carries over to the next one (each library's deadline is the
// run's start plus the budgets so far), so the whole run ends within their
// sum, about 3 minutes, on a 2-core machine.
const BUDGET_S = { yjs: 28, automerge: 52, loro: 42, loro_tree: 53 };
// W2 (10k, 100k, 1M) and W4 (1k, 10k) run as ladders of counts; the next rung
// is only tried if the previous rung's measured time says it fits in this many
// seconds (and in the library's budget).
const LADDER_TARGET_S = 22; // "about 20 s"
// W1's local phase is cut to a round smaller count when the rate measured on
// its first 1% of transactions says the full count would not fit in this many
// seconds (the remote phase then applies the same transactions).
const TXN_PHASE_LIMIT_S = { yjs: 20, automerge: 5, loro: 20, loro_tree: 20 };
// Seconds that the workloads still to come after W1 / after W3 usually take
// per library (W4 and W2 ladders included, on a busy 2-core machine). The
// optional extra figures of W1 and W3 only run if this much would be left.
const RESERVE_S = {
  W1: { yjs: 15, automerge: 35, loro: 35, loro_tree: 45 },
  W3: { yjs: 10, automerge: 10, loro: 22, loro_tree: 25 },
};

// ===========================================================================
// Child side: one library, one workload.
// ===========================================================================

// Capture every wasm linear memory the library instantiates (Loro and
// Automerge both use synchronous `new WebAssembly.Instance` in their Node
// builds), so W2 can report wasm memory growth. Must run before the import.
const wasmMemories = [];
function hookWasm() {
  const Orig = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(Orig, {
    construct(target, args, newTarget) {
      const inst = Reflect.construct(target, args, newTarget);
      const mem = inst.exports && inst.exports.memory;
      if (mem instanceof WebAssembly.Memory) wasmMemories.push(mem);
      return inst;
    },
  });
}
const wasmBytes = () => wasmMemories.reduce((s, m) => s + m.buffer.byteLength, 0);

function gcNow() {
  if (typeof global.gc !== "function") throw new Error("run with node --expose-gc");
  global.gc(); global.gc();
}

const KEYS = Array.from({ length: 10 }, (_, k) => "p" + k);
// When the parent will kill this child (ms since the epoch); optional extra
// figures are left out when they would not fit before it.
// Extras must also leave the parent's reserve for the library's workloads
// still to come (see RESERVE_S).
let childDeadline = Infinity, childReserveS = 0;
const secondsLeft = () => (childDeadline - Date.now()) / 1000 - childReserveS;

// ---- Library adapters ------------------------------------------------------
// flat: the W1/W4 document (n objects x 10 integer props, looked up by id)
// w2:   one map with x and y
// w3:   100 groups x 1000 children, snapshot encode/decode

async function yjsAdapter() {
  const Y = await import("yjs");
  // Yjs picks a random 32-bit clientID per doc, and its varint size changes
  // the encoded sizes by a few percent from run to run. Use a fixed one of
  // the typical size (15/16 of random ids need a 5-byte varint).
  const newDoc = () => { const d = new Y.Doc(); d.clientID = 3000000001; return d; };
  return {
    version: pkgVersion("yjs"),
    flat: {
      create(n, ids) {
        const doc = newDoc();
        const objs = doc.getMap("objs");
        doc.transact(() => {
          for (let i = 0; i < n; i++) {
            const m = new Y.Map();
            objs.set(ids[i], m);
            for (let k = 0; k < 10; k++) m.set(KEYS[k], i * 10 + k);
          }
        });
        return { doc, objs };
      },
      snapshot: (c) => Y.encodeStateAsUpdate(c.doc),
      fromSnapshot(bytes) {
        const doc = new Y.Doc();
        Y.applyUpdate(doc, bytes);
        return { doc, objs: doc.getMap("objs") };
      },
      startCapture(c) {
        c.last = null;
        c.doc.on("update", (u) => { c.last = u; });
      },
      localTxn(c, id, key, val) {
        c.last = null;
        c.doc.transact(() => { c.objs.get(id).set(key, val); });
        return c.last;
      },
      localTxnPlain(c, id, key, val) {
        c.doc.transact(() => { c.objs.get(id).set(key, val); });
      },
      applyRemote(c, bytes) { Y.applyUpdate(c.doc, bytes); },
      get: (c, id, key) => c.objs.get(id).get(key),
      undoManager(c) {
        const um = new Y.UndoManager(c.objs, { captureTimeout: 0 });
        return { undo: () => um.undo() !== null, redo: () => um.redo() !== null };
      },
    },
    w2: {
      create() {
        const doc = newDoc();
        const m = doc.getMap("obj");
        doc.transact(() => { m.set("x", 0); m.set("y", 0); });
        return { doc, m };
      },
      set(c, key, val) { c.doc.transact(() => { c.m.set(key, val); }); },
      memNote: "V8 heapUsed+arrayBuffers delta after global.gc() (Yjs is pure JS)",
    },
    w3: {
      build(G, C) {
        const doc = newDoc();
        const root = doc.getArray("root");
        doc.transact(() => {
          for (let g = 0; g < G; g++) {
            const gm = new Y.Map();
            root.push([gm]);
            gm.set("n", "g" + g);
            const ch = new Y.Array();
            gm.set("children", ch);
            const batch = [];
            for (let c = 0; c < C; c++) {
              const gi = g * C + c;
              const m = new Y.Map();
              m.set("n", "o" + gi); m.set("x", gi); m.set("y", gi * 0.5);
              batch.push(m);
            }
            ch.push(batch);
          }
        });
        return doc;
      },
      encode: (doc) => Y.encodeStateAsUpdate(doc),
      decodeOne(bytes, G, C) {
        const doc = new Y.Doc();
        Y.applyUpdate(doc, bytes);
        return doc.getArray("root").get(G - 1).get("children").get(C - 1).get("x");
      },
      decodeAll(bytes) {
        const doc = new Y.Doc();
        Y.applyUpdate(doc, bytes);
        let sum = 0, count = 0;
        for (const gm of doc.getArray("root")) {
          if (typeof gm.get("n") !== "string") throw new Error("bad group");
          count++;
          for (const m of gm.get("children")) {
            sum += m.get("x") + m.get("y"); if (typeof m.get("n") !== "string") throw new Error("bad n");
            count++;
          }
        }
        return { sum, count };
      },
    },
  };
}

async function automergeAdapter() {
  const A = await import("@automerge/automerge");
  const ACTOR = "a1".repeat(16);
  return {
    version: pkgVersion("@automerge/automerge"),
    flat: {
      create(n, ids) {
        const doc = A.change(A.init({ actor: ACTOR }), (d) => {
          d.objs = {};
          for (let i = 0; i < n; i++) {
            const o = {};
            for (let k = 0; k < 10; k++) o[KEYS[k]] = i * 10 + k;
            d.objs[ids[i]] = o;
          }
        });
        return { doc };
      },
      snapshot: (c) => A.save(c.doc),
      fromSnapshot: (bytes) => ({ doc: A.load(bytes, { actor: "b2".repeat(16) }) }),
      startCapture() {},
      localTxn(c, id, key, val) {
        c.doc = A.change(c.doc, (d) => { d.objs[id][key] = val; });
        return A.getLastLocalChange(c.doc);
      },
      localTxnPlain(c, id, key, val) {
        c.doc = A.change(c.doc, (d) => { d.objs[id][key] = val; });
      },
      applyRemote(c, bytes) { [c.doc] = A.applyChanges(c.doc, [bytes]); },
      get: (c, id, key) => c.doc.objs[id][key],
      undoManager: null,
    },
    w2: {
      create() {
        return { doc: A.change(A.init({ actor: ACTOR }), (d) => { d.x = 0; d.y = 0; }) };
      },
      set(c, key, val) { c.doc = A.change(c.doc, (d) => { d[key] = val; }); },
      memNote: "V8 heapUsed+arrayBuffers delta after global.gc() + Automerge wasm linear memory growth (high-water mark, never shrinks)",
    },
    w3: {
      build(G, C) {
        const groups = [];
        for (let g = 0; g < G; g++) {
          const children = [];
          for (let c = 0; c < C; c++) {
            const gi = g * C + c;
            // Float64 so that y is a float even where gi*0.5 is integral.
            children.push({ n: "o" + gi, x: gi, y: new A.Float64(gi * 0.5) });
          }
          groups.push({ n: "g" + g, children });
        }
        return A.from({ root: groups }, { actor: ACTOR });
      },
      encode: (doc) => A.save(doc),
      decodeOne: (bytes, G, C) => A.load(bytes).root[G - 1].children[C - 1].x,
      decodeAll(bytes) {
        const doc = A.load(bytes);
        let sum = 0, count = 0;
        for (const gm of doc.root) {
          if (typeof gm.n !== "string") throw new Error("bad group");
          count++;
          for (const m of gm.children) {
            // A Float64-tagged value reads back as a Float64 wrapper.
            const y = typeof m.y === "number" ? m.y : m.y.value;
            sum += m.x + y; if (typeof m.n !== "string") throw new Error("bad n");
            count++;
          }
        }
        return { sum, count };
      },
    },
  };
}

// Loro: each local transaction is a commit(); its bytes are
// export({mode: "update", from: <oplog version before the commit>}).
// subscribeLocalUpdates was tried too: it was no faster in our runs (both
// vary by +-30% from run to run), and it gives no callback for a commit that
// recorded nothing (a set to the value already there), so it yields 9,997
// updates for the 10,000 W1 transactions; export() yields one per
// transaction (22 bytes for such a no-op), like Yjs and Automerge do.
async function loroAdapter(tree) {
  const L = await import("loro-crdt");
  const { LoroDoc, LoroMap, LoroList, UndoManager } = L;
  const flatLocal = tree
    ? (c, id, key, val) => { c.tree.getNodeByID(id).data.set(key, val); c.doc.commit(); }
    : (c, id, key, val) => { c.objs.get(id).set(key, val); c.doc.commit(); };
  const wrap = (doc) => (tree ? { doc, tree: doc.getTree("objs") } : { doc, objs: doc.getMap("objs") });
  return {
    version: pkgVersion("loro-crdt"),
    // For the tree model the object ids are Loro TreeIDs, known once created.
    treeIds: tree,
    flat: {
      create(n, ids) {
        const doc = new LoroDoc();
        doc.setPeerId(1);
        if (tree) {
          const t = doc.getTree("objs");
          for (let i = 0; i < n; i++) {
            const node = t.createNode();
            ids[i] = node.id;
            for (let k = 0; k < 10; k++) node.data.set(KEYS[k], i * 10 + k);
          }
        } else {
          const objs = doc.getMap("objs");
          for (let i = 0; i < n; i++) {
            const m = objs.setContainer(ids[i], new LoroMap());
            for (let k = 0; k < 10; k++) m.set(KEYS[k], i * 10 + k);
          }
        }
        doc.commit();
        return wrap(doc);
      },
      snapshot: (c) => c.doc.export({ mode: "snapshot" }),
      fromSnapshot: (bytes) => wrap(LoroDoc.fromSnapshot(bytes)),
      startCapture(c) { c.vv = c.doc.oplogVersion(); },
      localTxn(c, id, key, val) {
        flatLocal(c, id, key, val);
        const u = c.doc.export({ mode: "update", from: c.vv });
        c.vv = c.doc.oplogVersion();
        return u;
      },
      localTxnPlain: flatLocal,
      applyRemote(c, bytes) { c.doc.import(bytes); },
      get: tree
        ? (c, id, key) => c.tree.getNodeByID(id).data.get(key)
        : (c, id, key) => c.objs.get(id).get(key),
      undoManager(c, steps) {
        const um = new UndoManager(c.doc, { mergeInterval: 0, maxUndoSteps: steps + 10 });
        return { undo: () => um.undo(), redo: () => um.redo() };
      },
    },
    w2: {
      create() {
        const doc = new LoroDoc();
        doc.setPeerId(1);
        let m;
        if (tree) m = doc.getTree("t").createNode().data;
        else m = doc.getMap("obj");
        m.set("x", 0); m.set("y", 0);
        doc.commit();
        return { doc, m };
      },
      set(c, key, val) { c.m.set(key, val); c.doc.commit(); },
      memNote: "V8 heapUsed+arrayBuffers delta after global.gc() + Loro wasm linear memory growth (high-water mark, never shrinks)",
    },
    w3: {
      build(G, C) {
        const doc = new LoroDoc();
        doc.setPeerId(1);
        if (tree) {
          const t = doc.getTree("tree");
          for (let g = 0; g < G; g++) {
            const gn = t.createNode();
            gn.data.set("n", "g" + g);
            for (let c = 0; c < C; c++) {
              const gi = g * C + c;
              const d = gn.createNode().data;
              d.set("n", "o" + gi); d.set("x", gi); d.set("y", gi * 0.5);
            }
            doc.commit(); // one commit per group builds faster than one big one
          }
        } else {
          const root = doc.getList("root");
          for (let g = 0; g < G; g++) {
            const gm = root.insertContainer(g, new LoroMap());
            gm.set("n", "g" + g);
            const ch = gm.setContainer("children", new LoroList());
            for (let c = 0; c < C; c++) {
              const gi = g * C + c;
              const m = ch.insertContainer(c, new LoroMap());
              m.set("n", "o" + gi); m.set("x", gi); m.set("y", gi * 0.5);
            }
            doc.commit();
          }
        }
        doc.commit();
        return doc;
      },
      encode: (doc) => doc.export({ mode: "snapshot" }),
      decodeOne(bytes, G, C) {
        const doc = LoroDoc.fromSnapshot(bytes);
        if (tree) return doc.getTree("tree").roots()[G - 1].children()[C - 1].data.get("x");
        return doc.getList("root").get(G - 1).get("children").get(C - 1).get("x");
      },
      decodeAll(bytes) {
        const doc = LoroDoc.fromSnapshot(bytes);
        let sum = 0, count = 0;
        if (tree) {
          for (const gn of doc.getTree("tree").roots()) {
            if (typeof gn.data.get("n") !== "string") throw new Error("bad group");
            count++;
            for (const cn of gn.children()) {
              const d = cn.data;
              sum += d.get("x") + d.get("y"); if (typeof d.get("n") !== "string") throw new Error("bad n");
              count++;
            }
          }
        } else {
          const root = doc.getList("root");
          const G = root.length;
          for (let g = 0; g < G; g++) {
            const gm = root.get(g);
            if (typeof gm.get("n") !== "string") throw new Error("bad group");
            count++;
            const ch = gm.get("children");
            const C = ch.length;
            for (let c = 0; c < C; c++) {
              const m = ch.get(c);
              sum += m.get("x") + m.get("y"); if (typeof m.get("n") !== "string") throw new Error("bad n");
              count++;
            }
          }
        }
        return { sum, count };
      },
    },
  };
}

function pkgVersion(name) {
  return JSON.parse(readFileSync(join(HERE, "node_modules", name, "package.json"), "utf8")).version;
}

async function loadAdapter(lib) {
  switch (lib) {
    case "yjs": return yjsAdapter();
    case "automerge": return automergeAdapter();
    case "loro": return loroAdapter(false);
    case "loro_tree": return loroAdapter(true);
  }
  throw new Error("unknown library " + lib);
}

// ---- W1 / W4 transaction list -------------------------------------------------
function txnList(nObjs, nTxns) {
  const obj = new Int32Array(nTxns), key = new Int32Array(nTxns);
  for (let j = 0; j < nTxns; j++) { obj[j] = (j * 7919) % nObjs; key[j] = j % 10; }
  return { obj, key };
}
function expectedAfter(nObjs, txns, count) {
  const v = new Float64Array(nObjs * 10);
  for (let i = 0; i < nObjs * 10; i++) v[i] = i; // object i, key k => i*10+k
  for (let j = 0; j < count; j++) v[txns.obj[j] * 10 + txns.key[j]] = j;
  return v;
}
function noopTxns(nObjs, txns, count) {
  const v = expectedAfter(nObjs, txns, 0);
  let noops = 0;
  for (let j = 0; j < count; j++) {
    const at = txns.obj[j] * 10 + txns.key[j];
    if (v[at] === j) noops++;
    v[at] = j;
  }
  return noops;
}
function verifyAll(ad, ctx, ids, nObjs, expected, what) {
  for (let i = 0; i < nObjs; i++) {
    for (let k = 0; k < 10; k++) {
      const got = ad.flat.get(ctx, ids[i], KEYS[k]);
      if (got !== expected[i * 10 + k]) {
        throw new Error(`VERIFY FAILED (${what}): object ${i} ${KEYS[k]} = ${got}, expected ${expected[i * 10 + k]}`);
      }
    }
  }
}

// Runs transactions 0..count-1 of `txns` through `fn(j)`; if the library is
// slow, the count is lowered to the largest of a few round counts that the
// rate measured on the first transactions says fits in limitS seconds.
// Returns the count actually run (all of them are inside the timing).
function runTxnsCapped(full, limitS, fn) {
  const ladder = [full, full / 2, full / 5, full / 10, full / 20, full / 50, full / 100].filter((c) => c >= 1 && Number.isInteger(c));
  const probe = Math.min(full, Math.max(10, full / 100));
  let target = full;
  const t0 = now();
  for (let j = 0; j < target; j++) {
    fn(j);
    if (j + 1 === probe && target === full) {
      const perTxn = (now() - t0) / 1000 / probe;
      target = ladder.find((c) => c * perTxn <= limitS) ?? probe;
      if (target < probe) target = probe;
    }
  }
  return target;
}

function w1(ad, lib, S) {
  const n = S.w1Objects, N = S.w1Txns;
  const ids = Array.from({ length: n }, (_, i) => String(i));
  const txns = txnList(n, N);
  let t = now();
  const A = ad.flat.create(n, ids);
  const snap = ad.flat.snapshot(A);
  const B = ad.flat.fromSnapshot(snap);
  log(`[${lib}] W1 built ${n}x10 doc + replica B from ${snap.length}-byte snapshot in ${round((now() - t) / 1000, 2)} s (untimed)`);

  ad.flat.startCapture(A);
  const updates = new Array(N);
  t = now();
  const count = runTxnsCapped(N, TXN_PHASE_LIMIT_S[lib], (j) => {
    updates[j] = ad.flat.localTxn(A, ids[txns.obj[j]], KEYS[txns.key[j]], j);
  });
  const localS = (now() - t) / 1000;
  let bytes = 0;
  for (let j = 0; j < count; j++) {
    if (!(updates[j] instanceof Uint8Array) || updates[j].length === 0) throw new Error(`transaction ${j} produced no update bytes`);
    bytes += updates[j].length;
  }
  log(`[${lib}] W1 local: ${count} txns in ${round(localS, 3)} s`);

  t = now();
  for (let j = 0; j < count; j++) ad.flat.applyRemote(B, updates[j]);
  const remoteS = (now() - t) / 1000;
  log(`[${lib}] W1 remote: ${count} updates in ${round(remoteS, 3)} s`);

  const exp = expectedAfter(n, txns, count);
  verifyAll(ad, A, ids, n, exp, "W1 replica A");
  verifyAll(ad, B, ids, n, exp, "W1 replica B");
  log(`[${lib}] W1 verified: A and B hold the expected values on all ${n} objects`);

  const out = {
    local_tps: round(count / localS, 1),
    remote_tps: round(count / remoteS, 1),
    bytes_per_txn: round(bytes / count, 2),
    count,
  };
  if (count < N) out.note = `count capped from ${N} by the time guard (rate measured on the first ${Math.max(10, N / 100)} txns)`;

  // Same transactions without producing update bytes, on a fresh doc, to show
  // what the per-transaction update export costs. Skipped for Automerge,
  // whose change() dominates and whose count is already capped.
  if (lib !== "automerge" && secondsLeft() > 2 * localS + 3) {
    const ids2 = Array.from({ length: n }, (_, i) => String(i));
    const C = ad.flat.create(n, ids2);
    t = now();
    for (let j = 0; j < count; j++) ad.flat.localTxnPlain(C, ids2[txns.obj[j]], KEYS[txns.key[j]], j);
    const plainS = (now() - t) / 1000;
    verifyAll(ad, C, ids2, n, exp, "W1 plain replica");
    out.local_tps_without_update_bytes = round(count / plainS, 1);
    log(`[${lib}] W1 local without update bytes: ${count} txns in ${round(plainS, 3)} s`);
  } else if (lib !== "automerge") {
    out.note = "local_tps_without_update_bytes left out: not enough of the time budget left";
  }
  return out;
}

function w4(ad, lib, S, N) {
  if (!ad.flat.undoManager) return { skipped: "no undo manager" };
  const n = S.w1Objects;
  const ids = Array.from({ length: n }, (_, i) => String(i));
  const txns = txnList(n, N);
  const A = ad.flat.create(n, ids);
  const um = ad.flat.undoManager(A, N);
  let t = now();
  for (let j = 0; j < N; j++) ad.flat.localTxnPlain(A, ids[txns.obj[j]], KEYS[txns.key[j]], j);
  log(`[${lib}] W4 applied ${N} local txns in ${round((now() - t) / 1000, 2)} s (untimed)`);
  const fin = expectedAfter(n, txns, N);
  verifyAll(ad, A, ids, n, fin, "W4 before undo");

  // Transactions that write the value the property already has: Loro elides
  // such a set (no op, no change, no undo step); Yjs and the others record it.
  const noops = noopTxns(n, txns, N);
  const checkSteps = (steps, what) => {
    if (steps !== N && steps !== N - noops) {
      throw new Error(`VERIFY FAILED (W4): ${steps} of ${N} ${what}() calls did something (${noops} txns were no-ops)`);
    }
  };

  let undoSteps = 0, tHalf = 0;
  const half = N >> 1;
  t = now();
  for (let j = 0; j < N; j++) {
    if (um.undo()) undoSteps++;
    if (j + 1 === half) tHalf = now();
  }
  const undoS = (now() - t) / 1000;
  const undoFirstHalfS = (tHalf - t) / 1000, undoSecondHalfS = undoS - undoFirstHalfS;
  checkSteps(undoSteps, "undo");
  verifyAll(ad, A, ids, n, expectedAfter(n, txns, 0), "W4 after all undos = initial doc");
  log(`[${lib}] W4 ${N} undo() calls (${undoSteps} steps) in ${round(undoS, 3)} s, doc equals the initial doc`);

  let redoSteps = 0;
  t = now();
  for (let j = 0; j < N; j++) if (um.redo()) redoSteps++;
  const redoS = (now() - t) / 1000;
  checkSteps(redoSteps, "redo");
  verifyAll(ad, A, ids, n, fin, "W4 after all redos = final doc");
  log(`[${lib}] W4 ${N} redo() calls (${redoSteps} steps) in ${round(redoS, 3)} s, doc equals the final doc`);
  const out = {
    undo_tps: round(N / undoS, 1), redo_tps: round(N / redoS, 1), count: N,
    undo_s: round(undoS, 4), redo_s: round(redoS, 4),
    // How the cost of one undo changes as undos proceed (equal halves = flat).
    undo_first_half_s: round(undoFirstHalfS, 4), undo_second_half_s: round(undoSecondHalfS, 4),
  };
  if (undoSteps !== N || redoSteps !== N) {
    out.undo_steps = undoSteps;
    out.redo_steps = redoSteps;
    out.note = `${noops} of the ${N} txns set a property to the value it already had; this library recorded no change and no undo step for them, so the last ${N - undoSteps} undo()/redo() calls found an empty stack (tps is calls per second)`;
  }
  return out;
}

function w2(ad, lib, count) {
  const c = ad.w2.create();
  gcNow();
  const m0 = process.memoryUsage(), w0 = wasmBytes();
  const t = now();
  for (let i = 0; i < count; i++) ad.w2.set(c, (i & 1) === 0 ? "x" : "y", i);
  const s = (now() - t) / 1000;
  gcNow();
  const m1 = process.memoryUsage(), w1b = wasmBytes();
  // Check the final state while the doc is still alive.
  const last = count - 1, lastX = last % 2 === 0 ? last : last - 1, lastY = last % 2 === 1 ? last : last - 1;
  const gx = lib === "automerge" ? c.doc.x : c.m.get("x");
  const gy = lib === "automerge" ? c.doc.y : c.m.get("y");
  if (gx !== lastX || gy !== lastY) throw new Error(`VERIFY FAILED (W2): x=${gx} y=${gy}, expected ${lastX} ${lastY}`);
  const heapD = m1.heapUsed - m0.heapUsed, abD = m1.arrayBuffers - m0.arrayBuffers, wasmD = w1b - w0;
  log(`[${lib}] W2 ${count} overwrites in ${round(s, 3)} s; heap ${heapD} B, arrayBuffers ${abD} B, wasm ${wasmD} B, rss ${m1.rss - m0.rss} B`);
  return {
    seconds: round(s, 4),
    mem_growth_bytes: heapD + abD + wasmD,
    count,
    heap_delta_bytes: heapD,
    array_buffers_delta_bytes: abD,
    wasm_memory_delta_bytes: wasmD,
    rss_delta_bytes: m1.rss - m0.rss,
    mem_note: ad.w2.memNote + "; rss delta given for reference only",
  };
}

function w3(ad, lib, S) {
  const G = S.w3Groups, C = S.w3Children, objects = G + G * C;
  let t = now();
  const doc = ad.w3.build(G, C);
  log(`[${lib}] W3 built ${objects} objects in ${round((now() - t) / 1000, 2)} s (untimed)`);
  let encode = Infinity, decode = Infinity, bytes = null, encodeFirst = 0, decodeFirst = 0;
  for (let r = 0; r < 3; r++) {
    gcNow();
    t = now();
    const b = ad.w3.encode(doc);
    const e = (now() - t) / 1000;
    encode = Math.min(encode, e);
    bytes = b;
    gcNow();
    t = now();
    const v = ad.w3.decodeOne(b, G, C);
    const d = (now() - t) / 1000;
    decode = Math.min(decode, d);
    if (r === 0) { encodeFirst = e; decodeFirst = d; }
    if (v !== G * C - 1) throw new Error(`VERIFY FAILED (W3): read back x=${v}, expected ${G * C - 1}`);
  }
  log(`[${lib}] W3 encode ${round(encode, 4)} s (first ${round(encodeFirst, 4)}), decode+read-one ${round(decode, 4)} s (first ${round(decodeFirst, 4)}), ${bytes.length} bytes`);
  const out = {
    encode_s: round(encode, 5),
    decode_s: round(decode, 5),
    bytes: bytes.length,
    objects,
    encode_first_s: round(encodeFirst, 5),
    decode_first_s: round(decodeFirst, 5),
  };
  // Extra, once: load and read every property of every object through the
  // API (Loro decodes snapshot state lazily). Left out if short of time.
  if (secondsLeft() < 2.5 * decodeFirst + 2) {
    out.decode_read_all_s = null;
    out.note = "decode_read_all_s left out: not enough of the time budget left";
    return out;
  }
  gcNow();
  t = now();
  const { sum, count } = ad.w3.decodeAll(bytes);
  const allS = (now() - t) / 1000;
  const n = G * C, expSum = (n * (n - 1) / 2) * 1.5;
  if (count !== objects || sum !== expSum) {
    throw new Error(`VERIFY FAILED (W3 full read): ${count} objects, sum ${String(sum).slice(0, 40)}, expected ${objects}, ${expSum}`);
  }
  log(`[${lib}] W3 decode + read all ${objects} objects ${round(allS, 3)} s`);
  out.decode_read_all_s = round(allS, 4);
  return out;
}

async function childMain(lib, workload, quick, param) {
  hookWasm();
  const ad = await loadAdapter(lib);
  const S = sizes(quick);
  let out;
  if (workload === "W1") out = w1(ad, lib, S);
  else if (workload === "W2") out = w2(ad, lib, param);
  else if (workload === "W3") out = w3(ad, lib, S);
  else if (workload === "W4") out = w4(ad, lib, S, param);
  else throw new Error("unknown workload " + workload);
  process.stdout.write(JSON.stringify({ version: ad.version, result: out }) + "\n");
}

// ===========================================================================
// Parent side.
// ===========================================================================

function runChild(lib, workload, quick, param, timeoutS) {
  return new Promise((resolve) => {
    const reserve = (RESERVE_S[workload] && RESERVE_S[workload][lib]) || 0;
    const args = ["--expose-gc", SCRIPT, "--child", lib, workload, String(param ?? 0), String(Date.now() + timeoutS * 1000), String(reserve)];
    if (quick) args.push("--quick");
    const t0 = now();
    const p = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    let timedOut = false;
    p.stdout.on("data", (d) => { out += d; });
    const timer = setTimeout(() => { timedOut = true; p.kill("SIGKILL"); }, Math.max(1, timeoutS) * 1000);
    p.on("close", (code) => {
      clearTimeout(timer);
      const wall = (now() - t0) / 1000;
      if (timedOut) return resolve({ timedOut: true, wall });
      if (code !== 0) return resolve({ error: `child exited with code ${code}`, wall });
      try {
        resolve({ ...JSON.parse(out.trim().split("\n").pop()), wall });
      } catch (e) {
        resolve({ error: "unparsable child output: " + out.slice(0, 200), wall });
      }
    });
  });
}

async function parentMain(quick, libs) {
  const S = sizes(quick);
  const results = {};
  let failed = false;
  const tAll = now();
  let deadline = tAll; // ms, performance.now() clock
  for (const lib of libs) {
    const tLib = now();
    deadline += BUDGET_S[lib] * 1000;
    const left = () => (deadline - now()) / 1000;
    const res = {};
    let version = null;
    // W2 goes last: its count ladder takes whatever budget is left.
    for (const w of ["W1", "W3", "W4", "W2"]) {
      if (w === "W4" && lib === "automerge") { res.W4 = { skipped: "no undo manager" }; continue; }
      if (left() <= 1) { res[w] = { skipped: `time guard: ${lib}'s time budget (${BUDGET_S[lib]} s + what earlier libraries left) used up` }; continue; }
      if (w === "W1" || w === "W3") {
        log(`[${lib}] ${w} ...`);
        const r = await runChild(lib, w, quick, 0, left());
        if (r.timedOut) res[w] = { skipped: `time guard: killed after ${round(r.wall, 1)} s (${lib}'s time budget)` };
        else if (r.error) { res[w] = { error: r.error }; failed = true; }
        else { res[w] = r.result; version = r.version; }
        continue;
      }
      // W2 and W4 run as a ladder of counts: the smallest first, then the
      // next one only if the time just measured says it fits in LADDER_TARGET_S
      // and in the budget left. W2 is estimated linearly in the count. For W4
      // the exponent comes from the two halves of the undo loop: if the time
      // T(K) grows like K^p, second half / first half = 2^p - 1 (Loro's
      // per-undo cost grows with the number of undos done, p ~ 2; Yjs's is
      // flat, p ~ 1).
      const ladder = w === "W2" ? S.w2Ladder : S.w4Ladder;
      const timeOf = (r) => (w === "W2" ? r.seconds : r.undo_s + r.redo_s);
      const powerOf = (r) => {
        if (w === "W2") return 1;
        const ratio = r.undo_second_half_s / Math.max(r.undo_first_half_s, 1e-6);
        return Math.min(3, Math.max(1, Math.log2(ratio + 1)));
      };
      let best = null, note = null;
      for (const count of ladder) {
        if (best) {
          const est = timeOf(best) * Math.pow(count / best.count, powerOf(best));
          if (est > LADDER_TARGET_S || est + 3 > left()) {
            note = `count ${count} not run: from the ${best.count} run it would take ~${round(est, 1)} s (limit ${LADDER_TARGET_S} s, ${round(left(), 1)} s of budget left); no extrapolated figure is given`;
            break;
          }
        }
        log(`[${lib}] ${w} count ${count} ...`);
        const r = await runChild(lib, w, quick, count, Math.min(left(), LADDER_TARGET_S * 2 + 10));
        if (r.timedOut) { note = `count ${count} killed by the time guard after ${round(r.wall, 1)} s (${lib}'s time budget)`; break; }
        if (r.error) { res[w] = { error: r.error }; failed = true; best = null; note = null; break; }
        best = r.result; version = r.version;
      }
      if (best) res[w] = note ? { ...best, note: best.note ? best.note + "; " + note : note } : best;
      else if (!res[w]) res[w] = { skipped: note || "time guard" };
    }
    results[lib] = Object.fromEntries(WORKLOADS.map((w) => [w, res[w]]));
    log(`[${lib}] done in ${round((now() - tLib) / 1000, 1)} s${version ? ` (version ${version})` : ""}`);
  }
  log(`all done in ${round((now() - tAll) / 1000, 1)} s`);
  process.stdout.write(JSON.stringify(results) + "\n");
  if (failed) {
    log("SOME WORKLOADS FAILED (see the \"error\" entries above)");
    process.exitCode = 1;
  }
}

// ---------------------------------------------------------------------------
const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const ci = argv.indexOf("--child");
if (ci >= 0) {
  const [lib, workload, param, deadline, reserve] = argv.slice(ci + 1, ci + 6);
  childDeadline = Number(deadline) || Infinity;
  childReserveS = Number(reserve) || 0;
  childMain(lib, workload, quick, Number(param)).catch((e) => {
    log(`[${lib}] ${workload} FAILED: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  });
} else {
  let libs = LIBS;
  const oi = argv.indexOf("--only");
  if (oi >= 0) {
    libs = (argv[oi + 1] || "").split(",").map((s) => s.trim()).filter(Boolean);
    const bad = libs.filter((l) => !LIBS.includes(l));
    if (bad.length || libs.length === 0) {
      log(`--only takes a comma-separated subset of ${LIBS.join(",")}; got ${argv[oi + 1]}`);
      process.exit(2);
    }
  }
  if (typeof global.gc !== "function") log("note: run with node --expose-gc (the child processes get it regardless)");
  parentMain(quick, libs);
}
