// Turns a collaborator's SVG text into a DOM tree safe to put in the page: the document comes from
// other people, so scripts, event handlers, foreign HTML and script URLs never reach the live DOM.

const FORBIDDEN = new Set(['script', 'foreignobject', 'iframe', 'object', 'embed', 'handler', 'listener']);

function isScriptUrl(v) {
  return /^\s*(javascript|vbscript|data\s*:\s*text\/html)/i.test(v.replace(/[\u0000-\u001f]/g, ''));
}

function clean(el) {
  for (const child of Array.from(el.children)) {
    if (FORBIDDEN.has(child.localName.toLowerCase())) child.remove();
    else clean(child);
  }
  for (const a of Array.from(el.attributes)) {
    const n = a.name.toLowerCase();
    if (n.startsWith('on')) el.removeAttribute(a.name);
    else if ((n === 'href' || n === 'xlink:href' || n.endsWith(':href') || n === 'src') && isScriptUrl(a.value))
      el.removeAttribute(a.name);
  }
  // <set>/<animate> could write an href or an event attribute at run time
  const ln = el.localName.toLowerCase();
  if ((ln === 'set' || ln.startsWith('animate')) &&
      /^(on|href|xlink:href)/i.test(el.getAttribute('attributeName') || ''))
    el.remove();
}

// Returns an <svg> element adopted into `doc`, or throws with the parser's message. ids: the
// document's element ids in document order (client.svgIds()), set as data-ens-id before anything
// is removed, so that each DOM element names its object in the session's document.
export function sanitizeSvg(text, doc = document, ids = null) {
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const err = parsed.querySelector('parsererror');
  if (err) throw new Error('the drawing could not be read: ' + err.textContent.slice(0, 200));
  const root = parsed.documentElement;
  if (root.localName !== 'svg') throw new Error('the drawing is not SVG');
  if (ids) {
    const all = [root, ...root.querySelectorAll('*')];
    if (all.length !== ids.length)
      throw new Error(`the drawing has ${all.length} elements where the document has ${ids.length}`);
    all.forEach((el, i) => el.setAttribute('data-ens-id', ids[i]));
  }
  clean(root);
  return doc.importNode(root, true);
}
