// What the animation view reads from the session's Lottie text: the timeline (layers in list
// order, each with its animated properties and their keyframe times, named by the addresses the
// library's Lottie edits take: docs/lottie.md, "Editing") and a copy safe to hand to the player.

const NAMES = { p: 'position', a: 'anchor', s: 'scale', r: 'rotation', o: 'opacity', c: 'colour',
                w: 'width', sk: 'skew', sa: 'skew axis', pt: 'path', ks: 'path', sz: 'size', rd: 'roundness' };
const MAX_DEPTH = 16; // groups nest; a document from a collaborator may nest without end

function finite(v, dflt) { return Number.isFinite(v) ? v : dflt; }

// An animated property: {a: 1, k: [{t, ...}, ...]}.
function animated(v) {
  return v && typeof v === 'object' && !Array.isArray(v) && v.a === 1 && Array.isArray(v.k);
}

function addProp(props, address, label, v) {
  if (!animated(v)) return;
  const keys = v.k.map(kf => kf && kf.t).filter(Number.isFinite);
  if (keys.length) props.push({ address, label, keys });
}

function walkShapes(list, path, label, props, depth) {
  if (!Array.isArray(list) || depth > MAX_DEPTH) return;
  list.forEach((s, j) => {
    if (!s || typeof s !== 'object') return;
    const at = `${path}/[${j}]`;
    // a group's transform is the group's own: its properties read as the group's
    const name = s.ty === 'tr' && label ? label
      : (label ? label + ' › ' : '') + (typeof s.nm === 'string' && s.nm ? s.nm : s.ty || 'shape');
    for (const [k, v] of Object.entries(s)) if (k !== 'it') addProp(props, `${at}.${k}`, `${name} ${NAMES[k] || k}`, v);
    if (s.ty === 'gr') walkShapes(s.it, at, name, props, depth + 1);
  });
}

// {fr, ip, op, w, h, layers: [{address, name, ip, op, st, props: [{address, label, keys}]}]}.
// Only the main composition's layers: a precomposition's play inside the layer that uses it.
export function timelineOf(anim) {
  const ip = finite(anim.ip, 0);
  const op = Math.max(finite(anim.op, ip + 1), ip + 1);
  const layers = (Array.isArray(anim.layers) ? anim.layers : []).map((l, i) => {
    const address = `[${i}]`, props = [];
    l = l && typeof l === 'object' ? l : {};
    for (const [k, v] of Object.entries(l.ks && typeof l.ks === 'object' ? l.ks : {}))
      addProp(props, `${address}.${k}`, NAMES[k] || k, v);
    walkShapes(l.shapes, address, '', props, 0);
    return {
      address, props,
      name: typeof l.nm === 'string' && l.nm ? l.nm : `Layer ${i + 1}`,
      ip: finite(l.ip, ip), op: finite(l.op, op), st: finite(l.st, 0),
    };
  });
  return { fr: finite(anim.fr, 30), ip, op, w: finite(anim.w, 512), h: finite(anim.h, 512), layers };
}

const BLANK = 'data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==';

// The player would fetch an image asset's or a font's URL: a collaborator could make every page in
// the session call a server of theirs. Only images inside the document are drawn; fonts come from
// the browser's own. (The player is lottie-web's light build, which evaluates no expressions.)
export function forPlayer(anim) {
  for (const a of Array.isArray(anim.assets) ? anim.assets : []) {
    if (!a || typeof a.p !== 'string' || Array.isArray(a.layers)) continue;
    if (!/^data:image\//i.test(a.p)) { a.u = ''; a.p = BLANK; a.e = 1; }
    else { a.u = ''; a.e = 1; }
  }
  if (anim.fonts && Array.isArray(anim.fonts.list)) for (const f of anim.fonts.list) if (f) delete f.fPath;
  return anim;
}
