# The same batch of glyph edits as `ensemble edit`, done through FontForge's
# own Python API: /usr/bin/python3 ff_batch.py FONT.sfd COMMANDS OUT.sfd
# (tests/integration/test_fontforge_agrees.c compares the two results).
import json
import sys

import fontforge


def parse_text(line):
    """A text command as `ensemble edit --help` describes it: a dict."""
    t = line.split('#', 1)[0].split() if not line.lstrip().startswith('{') else None
    if t is None:
        return json.loads(line)
    op, a = t[0], t[1:]
    if op in ('width', 'lsb'):
        return {'cmd': op, 'glyph': a[0], 'value': float(a[1])}
    if op == 'move':
        pts = [[int(v) for v in p.split(':')] for p in a[1].split(',')]
        return {'cmd': op, 'glyph': a[0], 'points': pts, 'dx': float(a[2]), 'dy': float(a[3])}
    if op == 'add-contour':
        closed = not (len(a) > 1 and a[1] == 'open')
        pts = [[float(v) for v in p.split(',')] for p in a[1 if closed else 2:]]
        return {'cmd': op, 'glyph': a[0], 'points': pts, 'closed': closed}
    if op in ('remove-contour', 'reverse'):
        return {'cmd': op, 'glyph': a[0], 'contour': int(a[1])}
    if op == 'add-point':
        return {'cmd': op, 'glyph': a[0], 'contour': int(a[1]), 'index': int(a[2]), 'x': float(a[3]), 'y': float(a[4])}
    if op == 'remove-point':
        return {'cmd': op, 'glyph': a[0], 'contour': int(a[1]), 'index': int(a[2])}
    if op == 'rename':
        return {'cmd': op, 'glyph': a[0], 'name': a[1]}
    if op == 'unicode':
        return {'cmd': op, 'glyph': a[0], 'value': a[1]}
    if op == 'add-glyph':
        return {'cmd': op, 'name': a[0], 'unicode': a[1] if len(a) > 1 else -1,
                'width': int(a[2]) if len(a) > 2 else 0}
    if op == 'remove-glyph':
        return {'cmd': op, 'glyph': a[0]}
    raise ValueError('unknown command ' + op)


def code_point(v):
    if isinstance(v, (int, float)):
        return int(v)
    v = str(v)
    if v in ('none', '-1'):
        return -1
    if v[:2] in ('U+', 'u+', '0x', '0X'):
        return int(v[2:], 16)
    return int(v)


# Outlines as nodes: each on-curve point with the off-curve points between
# the previous on-curve point and it ([] for a line; cubic: [previous
# point's outgoing control, this point's incoming one]; quadratic: [the
# control]). A closed contour's first node holds the closing segment's.

def to_nodes(contour):
    pts = [(p.x, p.y, bool(p.on_curve)) for p in contour]
    nodes, pending = [], []
    for x, y, on in pts:
        if on:
            nodes.append([[list(q) for q in pending], [x, y]])
            pending = []
        else:
            pending.append((x, y))
    if contour.closed and nodes:
        nodes[0][0] = [list(q) for q in pending]
    return nodes


def from_nodes(nodes, closed, quadratic):
    c = fontforge.contour()
    c.is_quadratic = quadratic
    for i, (offs, p) in enumerate(nodes):
        if i > 0:
            for q in offs:
                c += fontforge.point(q[0], q[1], False)
        c += fontforge.point(p[0], p[1], True)
    if closed:
        for q in nodes[0][0]:
            c += fontforge.point(q[0], q[1], False)
    c.closed = closed
    return c


def outline(g):
    layer = g.foreground
    return layer.is_quadratic, [(to_nodes(c), c.closed) for c in layer]


def store(g, quadratic, contours):
    layer = fontforge.layer()
    layer.is_quadratic = quadratic
    for nodes, closed in contours:
        layer += from_nodes(nodes, closed, quadratic)
    g.foreground = layer


def norm(nodes, closed, i):
    """A closed contour's repeated last point (SFD numbering) is its first."""
    return 0 if closed and i == len(nodes) else i


def move(g, pts, dx, dy):
    quadratic, contours = outline(g)
    moved = set()
    for ci, pi in pts:
        nodes, closed = contours[ci]
        n = len(nodes)
        i = norm(nodes, closed, pi)
        moved.add((ci, i, 'p', 0))
        if nodes[i][0]:                      # its incoming control
            moved.add((ci, i, 'o', len(nodes[i][0]) - 1))
        nxt = i + 1 if i + 1 < n else (0 if closed else None)
        if nxt is not None and nodes[nxt][0]:  # its outgoing control
            moved.add((ci, nxt, 'o', 0))
    for ci, i, kind, j in moved:
        nodes = contours[ci][0]
        target = nodes[i][1] if kind == 'p' else nodes[i][0][j]
        target[0] += dx
        target[1] += dy
    store(g, quadratic, contours)


def add_point(g, ci, index, x, y):
    quadratic, contours = outline(g)
    nodes, closed = contours[ci]
    n = len(nodes)
    if closed and index in (0, n):
        nodes.append([nodes[0][0], [x, y]])  # the closing segment now ends here
        nodes[0][0] = []
    else:
        nodes.insert(index, [nodes[index][0] if index < n and index > 0 else [], [x, y]])
        if index + 1 <= n and index > 0:
            nodes[index + 1][0] = []
    store(g, quadratic, contours)


def remove_point(g, ci, index):
    quadratic, contours = outline(g)
    nodes, closed = contours[ci]
    n = len(nodes)
    i = norm(nodes, closed, index)
    if not closed and i == n - 1:
        del nodes[i]
    elif not closed and i == 0:
        del nodes[0]
        nodes[0][0] = []
    else:
        prev, nxt = nodes[i - 1], nodes[(i + 1) % n]
        a, b = nodes[i][0], nxt[0]
        if quadratic:
            offs = [a[0]] if a else ([b[0]] if b else [])
        else:
            out_ctl = a[0] if len(a) == 2 else None   # the previous point's outgoing control
            in_ctl = b[-1] if len(b) == 2 else None   # the next point's incoming control
            if out_ctl is None and in_ctl is None:
                offs = []
            else:
                offs = [out_ctl or list(prev[1]), in_ctl or list(nxt[1])]
        nxt[0] = offs
        del nodes[i]
    store(g, quadratic, contours)


def add_contour(g, pts, closed):
    quadratic, contours = outline(g)
    nodes = []
    for p in pts:
        if len(p) == 2:
            nodes.append([[], [p[0], p[1]]])
        else:
            offs = [[p[0], p[1]]] if quadratic else [[p[0], p[1]], [p[2], p[3]]]
            nodes.append([offs, [p[4], p[5]]])
    if not closed:
        nodes[0][0] = []
    contours.append((nodes, closed))
    store(g, quadratic, contours)


def remove_contour(g, ci):
    quadratic, contours = outline(g)
    del contours[ci]
    store(g, quadratic, contours)


def reverse(g, ci):
    layer = g.foreground
    c = layer[ci]
    c.reverseDirection()   # FontForge's own reversal
    layer[ci] = c
    g.foreground = layer


def run(font, cmd):
    op = cmd['cmd']
    g = font[cmd['glyph']] if 'glyph' in cmd and op != 'add-glyph' else None
    if op == 'width':
        g.width = int(cmd['value'])
    elif op == 'lsb':
        g.left_side_bearing = int(cmd['value'])
    elif op == 'move':
        pts = cmd['points']
        if isinstance(pts, str):
            pts = [[int(v) for v in p.split(':')] for p in pts.split(',')]
        move(g, pts, cmd['dx'], cmd['dy'])
    elif op == 'add-contour':
        add_contour(g, cmd['points'], cmd.get('closed', True))
    elif op == 'remove-contour':
        remove_contour(g, cmd['contour'])
    elif op == 'add-point':
        add_point(g, cmd['contour'], cmd['index'], cmd['x'], cmd['y'])
    elif op == 'remove-point':
        remove_point(g, cmd['contour'], cmd['index'])
    elif op == 'reverse':
        reverse(g, cmd['contour'])
    elif op == 'rename':
        g.glyphname = cmd.get('name', cmd.get('to'))
    elif op == 'unicode':
        g.unicode = code_point(cmd['value'])
    elif op == 'add-glyph':
        n = font.createChar(code_point(cmd.get('unicode', -1)), cmd.get('name', cmd.get('glyph')))
        n.width = int(cmd.get('width', 0))
    elif op == 'remove-glyph':
        font.removeGlyph(cmd['glyph'])
    else:
        raise ValueError('unknown command ' + op)


def main():
    font = fontforge.open(sys.argv[1])
    with open(sys.argv[2]) as f:
        for number, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith('#'):
                continue
            try:
                run(font, parse_text(s))
            except Exception as e:  # name the line, as ensemble edit does
                sys.exit('%s:%d: %s' % (sys.argv[2], number, e))
    font.save(sys.argv[3])


if __name__ == '__main__':
    main()
