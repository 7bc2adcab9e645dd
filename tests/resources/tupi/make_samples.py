#!/usr/bin/python3
"""Writes the small Tupi projects of this directory (tweens.tup, scenes.tup).

They are written by hand from Tupi's file format (project.tpp, sceneN.tps,
library.tpl in a zip, as Tupi/TupiTube saves them) to exercise what the
corpus sample lacks: every kind of tween, runs of frames drawn alike, a
hidden layer, a library image placed in frames, items with no Lottie counterpart, several scenes. Made for
Ensemble; same licence as Ensemble. Run it from anywhere; the output is
deterministic (fixed zip timestamps)."""
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

PROJECT = """<Tupi version="1">
 <project name="{name}">
  <meta>
   <author>ensemble</author>
   <bgcolor>#ffffff</bgcolor>
   <description>hand-made sample</description>
   <dimension>200,150</dimension>
   <fps>12</fps>
  </meta>
 </project>
</Tupi>
"""

LIBRARY = """<library>
 <folder id="library"/>
</library>
"""

LIBRARY_IMAGE = """<library>
 <folder id="library">
  <object path="dot.png" id="dot.png" type="2"/>
 </folder>
</library>
"""

def png(w, h, rgb):
    """A PNG of one colour, made here (zlib and struct only)."""
    import struct, zlib
    raw = b"".join(b"\0" + bytes(rgb) * w for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))

def symbol(ident, pos, matrix="matrix(1,0,0,1,0,0)"):
    return '<symbol id="%s">%s</symbol>' % (ident, props(pos, matrix))

def props(pos="(0,0)", matrix="matrix(1,0,0,1,0,0)"):
    return ('<properties rotation="0" scale_y="1" transform="%s" enabled="1" pos="%s" flags="0" scale_x="1"/>'
            % (matrix, pos))

def style(pen="#000000", brush="#ff0000", brush_style=1, width=2):
    return ('<brush transform="matrix(1,0,0,1,0,0)" style="%d" color="%s" alpha="255"/>'
            '<pen capStyle="32" style="1" color="%s" alpha="255" joinStyle="128" width="%d" miterLimit="2">'
            '<brush transform="matrix(1,0,0,1,0,0)" style="1" color="%s" alpha="255"/></pen>'
            % (brush_style, brush, pen, width, pen))

def rect(x, y, w, h, pos="(0,0)", **kw):
    return '<rect x="%g" y="%g" width="%g" height="%g">%s%s</rect>' % (x, y, w, h, props(pos), style(**kw))

def ellipse(cx, cy, rx, ry, pos="(0,0)", **kw):
    return '<ellipse cx="%g" cy="%g" rx="%g" ry="%g">%s%s</ellipse>' % (cx, cy, rx, ry, props(pos), style(**kw))

def path(d, pos="(0,0)", **kw):
    return '<path coords="%s">%s%s</path>' % (d, props(pos), style(**kw))

def tween(name, ttype, frames, origin, steps, **attrs):
    extra = "".join(' %s="%s"' % kv for kv in sorted(attrs.items()))
    body = "".join('<step value="%d">%s</step>' % (i, s) for i, s in enumerate(steps))
    return ('<tweening name="%s" type="%d" initFrame="0" initLayer="0" initScene="0" frames="%d" origin="%s"%s>%s'
            '</tweening>' % (name, ttype, frames, origin, extra, body))

def frame(name, *objects):
    return '<frame name="%s">%s</frame>' % (name, "".join("<object>%s</object>" % o for o in objects))

def scene(name, layers, background=""):
    return ('<scene name="%s" fps="12"><storyboard cover_duration="1.0"><title></title></storyboard>'
            '<background bgLayerIndexes="0,1,2,3,4" bgLayerVisibility="1,1,1,1,1">%s</background>%s</scene>'
            % (name, background, "".join(layers)))

def layer(name, frames, opacity=1, visible=1):
    return '<layer name="%s" opacity="%g" visible="%d">%s</layer>' % (name, opacity, visible, "".join(frames))

def write(name, scenes, library=LIBRARY, files=()):
    with zipfile.ZipFile(os.path.join(HERE, name), "w", zipfile.ZIP_DEFLATED) as z:
        def add(path, text):
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
        base = name[:-4] + "/"
        add(base + "project.tpp", PROJECT.format(name=name[:-4]))
        add(base + "library.tpl", library)
        for path, data in files:
            add(base + path, data)
        for i, s in enumerate(scenes):
            add(base + "scene%d.tps" % i, s)

def tweens():
    n = 6
    pos = tween("slide", 0, n, "20,30", ['<position x="%g" y="%g"/>' % (30 + 20 * i, 40 + 5 * i) for i in range(n)],
                coords="M 30 40 L 130 65", intervals="0")
    rot = tween("spin", 1, n, "15,15", ['<rotation angle="%g"/>' % (30 * i) for i in range(n)],
                rotationType=0, rotateSpeed=30, rotateDirection=0)
    scl = tween("grow", 2, n, "10,10", ['<scale sx="%g" sy="%g"/>' % (1 + 0.2 * i, 1 + 0.1 * i) for i in range(n)],
                scaleAxes=0, initXScaleFactor=1, initYScaleFactor=1, scaleFactor=0.2, scaleIterations=n,
                scaleLoop=0, scaleReverseLoop=0)
    shr = tween("lean", 3, n, "10,10", ['<shear sh="%g" sv="0"/>' % (0.1 * i) for i in range(n)],
                shearAxes=1, shearFactor=0.1, shearIterations=n, shearLoop=0, shearReverseLoop=0)
    opa = tween("fade", 4, n, "0,0", ['<opacity opacity="%g"/>' % (1 - 0.15 * i) for i in range(n)],
                initOpacityFactor=1, endOpacityFactor=0.25, opacityIterations=n, opacityLoop=0, opacityReverseLoop=0)
    col = tween("blush", 5, n, "0,0", ['<color red="%d" green="%d" blue="%d"/>' % (50 * i, 0, 255 - 50 * i)
                                       for i in range(n)],
                fillType=1, initialColor="0,0,255", endingColor="250,0,5", colorIterations=n, colorLoop=0,
                colorReverseLoop=0)
    still = rect(10, 10, 40, 30, brush="#3366cc")
    hill = path("M 0 150 C 50 100  150 100  200 150 Z", brush="#00aa44")
    moving = [
        frame("Frame 1", rect(0, 0, 20, 20, pos="(20,30)", brush="#cc3300") + pos),
        frame("Frame 2", ellipse(15, 15, 15, 10, pos="(120,20)", brush="#ffcc00") + rot),
        frame("Frame 3", path("M 0 0 L 20 0 L 20 20 L 0 20 Z", pos="(60,60)", brush="#9933cc") + scl),
        frame("Frame 4", rect(0, 0, 20, 20, pos="(100,90)", brush="#339999") + shr),
        frame("Frame 5", ellipse(0, 0, 12, 12, pos="(40,100)", brush="#000000") + opa),
        frame("Frame 6", rect(0, 0, 30, 20, pos="(150,100)", brush="#0000ff") + col),
    ]
    text = '<text>%s<font family="Sans" size="12"/>hello</text>' % props("(10,10)")
    dot = symbol("dot.png", "(160,10)", "matrix(2,0,0,2,0,0)")
    back = layer("back", [frame("Frame 1", still, dot), frame("Frame 2", still, dot), frame("Frame 3", still, dot),
                          frame("Frame 4", still, rect(60, 10, 10, 10, brush="#000000"),
                                symbol("dot.png", "(170,20)")),
                          frame("Frame 5", still), frame("Frame 6"), frame("Frame 7", text)])
    fore = layer("motion", moving, opacity=0.8)
    ghost = layer("ghost", [frame("Frame 1", still)], visible=0)
    bg = '<frame name="landscape_static" opacity="1">%s</frame>' % ("<object>%s</object>" % hill)
    return [scene("Scene 1", [back, fore, ghost], bg)]

def scenes():
    a = layer("one", [frame("Frame 1", rect(10, 10, 50, 50, brush="#ff0000")),
                      frame("Frame 2", rect(20, 10, 50, 50, brush="#ff0000"))])
    b = layer("two", [frame("Frame 1", ellipse(100, 75, 40, 30, brush="#00ff00"))] * 3)
    return [scene("First", [a]), scene("Second", [b])]

if __name__ == "__main__":
    write("tweens.tup", tweens(), LIBRARY_IMAGE, [("images/dot.png", png(10, 10, (255, 0, 255)))])
    write("scenes.tup", scenes())
