// Brings the drawing on the page up to date with a newly written copy of the document by changing
// only what differs: an element whose object (data-ens-id) is in both copies keeps its DOM node and
// gets the new attributes and children; elements no longer there are removed, new ones inserted,
// reordered ones moved. So an edit does not rebuild the page's drawing: nodes other code holds (the
// selection, a drag's preview, the overlays' targets) stay valid, and nothing flickers.

// Keys of the child nodes of el, in order: an element by its object id; a text, comment or element
// without an id by the key of the element before it and its rank after that one. null when two
// children have the same key (ids repeated: the caller redraws in full).
function keys(el) {
  const out = [], seen = new Set();
  let prev = '^', k = 0;
  for (const n of el.childNodes) {
    const id = n.nodeType === 1 ? n.getAttribute('data-ens-id') : null;
    let key;
    if (id) { key = 'e:' + id; prev = key; k = 0; } else key = `${n.nodeType}:${prev}:${k++}`;
    if (seen.has(key)) return null;
    seen.add(key);
    out.push(key);
  }
  return out;
}

function sameKind(a, b) {
  return a.nodeType === b.nodeType && (a.nodeType !== 1 || (a.namespaceURI === b.namespaceURI && a.localName === b.localName));
}

// onAttr(el, name, value): when it returns true the attribute is left to the caller (value undefined:
// the new copy has no such attribute).
function syncAttributes(live, fresh, onAttr) {
  for (const a of Array.from(live.attributes)) {
    if (fresh.hasAttributeNS(a.namespaceURI, a.localName)) continue;
    if (onAttr && onAttr(live, a.name, undefined)) continue;
    live.removeAttributeNS(a.namespaceURI, a.localName);
  }
  for (const a of Array.from(fresh.attributes)) {
    if (onAttr && onAttr(live, a.name, a.value)) continue;
    if (live.getAttributeNS(a.namespaceURI, a.localName) !== a.value) live.setAttributeNS(a.namespaceURI, a.name, a.value);
  }
}

// Makes live (in the page) equal to fresh (a sanitised copy, already imported into the page's
// document, whose nodes may be moved into live). Returns false, having changed nothing, when the
// two cannot be matched (different elements at the root, repeated ids); the caller then replaces
// the whole tree. Counts what it did in stats {kept, added, removed, moved}.
export function patchTree(live, fresh, onAttr = null, stats = { kept: 0, added: 0, removed: 0, moved: 0 }) {
  if (!sameKind(live, fresh) || !canPatch(live, fresh)) return false;
  patchElement(live, fresh, onAttr, stats);
  return true;
}

// Every level's keys are unique on both sides (checked first, so a patch never stops half way).
function canPatch(live, fresh) {
  if (!keys(live) || !keys(fresh)) return false;
  const liveById = new Map();
  for (const c of live.children) liveById.set(c.getAttribute('data-ens-id'), c);
  for (const f of fresh.children) {
    const l = liveById.get(f.getAttribute('data-ens-id'));
    if (l && sameKind(l, f) && !canPatch(l, f)) return false;
  }
  return true;
}

function patchElement(live, fresh, onAttr, stats) {
  syncAttributes(live, fresh, onAttr);
  const lk = keys(live), fk = keys(fresh);
  const liveNodes = Array.from(live.childNodes), freshNodes = Array.from(fresh.childNodes);
  const byKey = new Map(lk.map((k, i) => [k, liveNodes[i]]));
  const wanted = new Map();
  fk.forEach((k, i) => {
    const l = byKey.get(k);
    if (l && sameKind(l, freshNodes[i])) wanted.set(l, freshNodes[i]);
  });
  // live nodes with no counterpart go first, so the ones kept stay in place where the order is unchanged
  for (const l of liveNodes) if (!wanted.has(l)) { l.remove(); stats.removed++; }
  let cursor = live.firstChild;
  freshNodes.forEach((f, i) => {
    const l = byKey.get(fk[i]);
    let node = f;
    if (l && wanted.get(l) === f) {
      node = l;
      stats.kept++;
      if (l.nodeType === 1) patchElement(l, f, onAttr, stats);
      else if (l.data !== f.data) l.data = f.data;
    } else stats.added++;
    if (node === cursor) cursor = cursor.nextSibling;
    else {
      if (node === l) stats.moved++;
      live.insertBefore(node, cursor);
    }
  });
}
