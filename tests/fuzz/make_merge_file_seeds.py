#!/usr/bin/python3
"""Writes the seed corpus of fuzz_merge_files: pairs of consecutive real
versions cut down to a few objects each, so that the fuzzer starts from
real structure. Not part of the build; deterministic:

  tests/fuzz/make_merge_file_seeds.py CORPUS tests/fuzz/corpus/fuzz_merge_files

CORPUS holds sfd/dejavu-history (DejaVuSansMono revisions; Bitstream Vera
licence and public domain) and svg/history/adwaita-faces (GNOME's
faces.svg revisions; CC-BY-SA 3.0 / LGPLv3). Their licences go beside the
seeds (LICENSE.seeds, which the fuzz target reads as one more input)."""
import os
import re
import sys
import xml.etree.ElementTree as ET

SEP = b"\n@@ENSEMBLE-NEXT@@\n"


def sfd_parts(path):
    text = open(path, "rb").read()
    head_end = text.index(b"\nBeginChars:") + 1
    chars_end = text.index(b"\nEndChars") + 1
    body = text[head_end:chars_end]
    first_nl = body.index(b"\n") + 1
    begin_line, body = body[:first_nl], body[first_nl:]
    blocks = {}
    order = []
    for m in re.finditer(rb"StartChar: (\S+)\n.*?\nEndChar\n", body, re.S):
        blocks[m.group(1)] = m.group(0)
        order.append(m.group(1))
    return text[:head_end], begin_line, blocks, order, text[chars_end:]


def sfd_plain(block):
    # no references, kerning or lookups into glyphs the cut leaves out
    return not re.search(rb"\n(Refer|Kerns2|KernsSLIF|Ligature2|Substitution2|AlternateSubs2|MultipleSubs2|Position2|PairPos2):", block)


def sfd_cut(head, begin_line, blocks, names):
    size = begin_line.split()[1]
    out = head + b"BeginChars: " + size + b" " + str(len(names)).encode() + b"\n\n"
    out += b"\n".join(blocks[n] for n in names)
    return out + b"EndChars\nEndSplineFont\n"


def sfd_strip(block):
    # a composite's references name glyphs by their place in the whole font
    return re.sub(rb"\nRefer: [^\n]*", b"", block)


def sfd_seeds(corpus, outdir):
    # the successive revisions add glyphs: each seed holds the glyphs
    # around the added ones in both versions, and the added ones in v2
    d = os.path.join(corpus, "sfd/dejavu-history")
    vs = ["DejaVuSansMono.358190f.sfd", "DejaVuSansMono.9a517dc.sfd", "DejaVuSansMono.ae12ffe.sfd"]
    n = 0
    for a, b in zip(vs, vs[1:]):
        h1, bl1, b1, o1, t1 = sfd_parts(os.path.join(d, a))
        h2, bl2, b2, o2, t2 = sfd_parts(os.path.join(d, b))
        added = [x for x in o2 if x not in b1]
        for k, x in enumerate(added[:4]):
            at = o2.index(x)
            near = [y for y in o2[max(0, at - 3):at + 4] if y in b1 and b1[y] == b2[y] and sfd_plain(b1[y])][:4]
            v1 = sfd_cut(h1, bl1, b1, near)
            blocks = dict(b2)
            blocks[x] = sfd_strip(b2[x])
            v2 = sfd_cut(h2, bl2, blocks, [y for y in o2 if y in near or y == x])
            name = "dejavu-%s-%s-%d" % (a.split(".")[1], b.split(".")[1], k)
            open(os.path.join(outdir, name), "wb").write(b"\x01" + v1 + SEP + v2)
            n += 1
    return n


NS = {
    "": "http://www.w3.org/2000/svg",
    "svg": "http://www.w3.org/2000/svg",
    "xlink": "http://www.w3.org/1999/xlink",
    "sodipodi": "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "inkscape": "http://www.inkscape.org/namespaces/inkscape",
    "dc": "http://purl.org/dc/elements/1.1/",
    "cc": "http://creativecommons.org/ns#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
}


def svg_cut(root, ids):
    out = ET.Element(root.tag, {k: v for k, v in root.attrib.items() if k in ("width", "height", "viewBox", "id")})
    out.text = "\n  "
    for e in ids:
        c = e
        c.tail = "\n  "
        out.append(c)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(out) + b"\n"


def svg_seeds(corpus, outdir):
    for p, uri in NS.items():
        if p != "svg":
            ET.register_namespace(p, uri)
    d = os.path.join(corpus, "svg/history/adwaita-faces")
    vs = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
    n = 0
    for a, b in zip(vs, vs[1:]):
        r1 = ET.parse(os.path.join(d, a)).getroot()
        r2 = ET.parse(os.path.join(d, b)).getroot()
        by1 = {e.get("id"): e for e in r1.iter() if e.get("id")}
        by2 = {e.get("id"): e for e in r2.iter() if e.get("id")}
        changed, same = [], []
        for i, e in by1.items():
            if i not in by2 or e is r1:
                continue
            s1, s2 = ET.tostring(e), ET.tostring(by2[i])
            if len(s1) > 6000 or len(s2) > 6000 or e.tag.endswith("}svg"):
                continue
            (changed if s1 != s2 else same).append(i)
        if not changed:
            continue
        pick = sorted(changed)[:3] + sorted(same)[:2]
        # an element and one of its ancestors would be taken twice
        pick = [i for i in pick if not any(i != j and by1[i] in by1[j].iter() for j in pick)]
        v1 = svg_cut(r1, [by1[i] for i in pick])
        v2 = svg_cut(r2, [by2[i] for i in pick])
        name = "adwaita-faces-%s-%s" % (a.split(".")[0], b.split(".")[0])
        open(os.path.join(outdir, name), "wb").write(b"\x00" + v1 + SEP + v2)
        n += 1
    return n


def main():
    corpus, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    n = sfd_seeds(corpus, outdir) + svg_seeds(corpus, outdir)
    lic = open(os.path.join(corpus, "sfd/dejavu/LICENSE"), "rb").read()
    with open(os.path.join(outdir, "LICENSE.seeds"), "wb") as f:
        f.write(b"The seeds dejavu-* are cut from revisions of DejaVuSansMono.sfd\n"
                b"(dejavu-fonts/dejavu-fonts), under the licence below.\n"
                b"The seeds adwaita-faces-* are cut from revisions of src/faces.svg of\n"
                b"GNOME's adwaita-icon-theme, under CC-BY-SA 3.0\n"
                b"(https://creativecommons.org/licenses/by-sa/3.0/) or LGPLv3.\n\n" + lic)
    print("%d seeds" % n)


main()
