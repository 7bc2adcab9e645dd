// Glyph outlines from glyph(name): SFD's points (on-curve and control points) traced as canvas paths.

// Traces every contour into ctx's current path; map(x, y) gives canvas coordinates.
export function traceGlyph(ctx, contours, map) {
  for (const pts of contours) {
    const n = pts.length;
    if (!n) continue;
    let first = pts.findIndex(p => p.on);
    if (first < 0) continue;          // only control points: nothing sensible to draw
    const start = map(pts[first].x, pts[first].y);
    ctx.moveTo(start[0], start[1]);
    let offs = [];
    for (let k = 1; k <= n; k++) {
      const p = pts[(first + k) % n];
      if (!p.on) { offs.push(map(p.x, p.y)); continue; }
      const q = map(p.x, p.y);
      if (offs.length === 0) ctx.lineTo(q[0], q[1]);
      // one control, or a quadratic (TrueType) segment's one control written twice as SFD does
      else if (offs.length === 1 || (offs.length === 2 && offs[0][0] === offs[1][0] && offs[0][1] === offs[1][1]))
        ctx.quadraticCurveTo(offs[0][0], offs[0][1], q[0], q[1]);
      else ctx.bezierCurveTo(offs[0][0], offs[0][1], offs[offs.length - 1][0], offs[offs.length - 1][1], q[0], q[1]);
      offs = [];
    }
    ctx.closePath();
  }
}

// Draws a glyph filled into a small canvas cell, scaled to the font's ascent+descent; a glyph that
// reaches beyond them (an accent above a capital, a mark left of its origin) is scaled down to fit.
export function drawThumb(canvas, glyph, info) {
  const dpr = window.devicePixelRatio || 1;
  const w = 64, h = 64;   // the cell's canvas size in CSS pixels (style.css); no layout read per cell
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  let top = info.ascent, bottom = -info.descent, left = 0, right = glyph.width;
  for (const pts of glyph.contours)
    for (const p of pts) {
      if (p.y > top) top = p.y; else if (p.y < bottom) bottom = p.y;
      if (p.x < left) left = p.x; else if (p.x > right) right = p.x;
    }
  const span = (info.ascent + info.descent) || info.em || 1000;
  const s = Math.min((h - 6) / Math.max(span, top - bottom), (w - 4) / Math.max(span, right - left));
  const ox = (w - (left + right) * s) / 2, base = 3 + top * s;
  ctx.beginPath();
  traceGlyph(ctx, glyph.contours, (x, y) => [ox + x * s, base - y * s]);
  ctx.fillStyle = '#222';
  ctx.fill('nonzero');
}
