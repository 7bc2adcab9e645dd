// Drawing others' presence over a view: a selection box and a small labelled cursor per person.

export function selectionBox(rect, origin, colour, label, mine) {
  const box = document.createElement('div');
  box.className = 'sel-box' + (mine ? ' mine' : '');
  box.style.left = `${rect.left - origin.left - 2}px`;
  box.style.top = `${rect.top - origin.top - 2}px`;
  box.style.width = `${rect.width + 4}px`;
  box.style.height = `${rect.height + 4}px`;
  if (!mine) {
    box.style.borderColor = colour;
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.style.background = colour;
    tag.textContent = label;
    box.append(tag);
  }
  return box;
}

export function cursor(x, y, colour, label) {
  const c = document.createElement('div');
  c.className = 'cursor';
  c.style.left = `${x}px`;
  c.style.top = `${y}px`;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '14');
  svg.setAttribute('height', '18');
  const p = document.createElementNS(ns, 'path');
  p.setAttribute('d', 'M1 1 L1 15 L5 11 L8 17 L10 16 L7 10 L12 10 Z');
  p.setAttribute('fill', colour);
  p.setAttribute('stroke', '#fff');
  svg.append(p);
  const tag = document.createElement('span');
  tag.className = 'tag';
  tag.style.background = colour;
  tag.textContent = label;
  c.append(svg, tag);
  return c;
}

// Others only: the page's own presence is drawn by the view itself.
export function others(client) {
  const me = String(client.site());
  return (client.presence() || []).filter(p => String(p.site) !== me);
}

// A pointer's context 0 is the document itself (a drawing's pointers); ids cross as "site:counter".
export function onDocument(pointer) {
  const c = pointer && pointer.ctx;
  return c === 0 || c === '0' || c === '0:0' || c === null || c === undefined;
}
