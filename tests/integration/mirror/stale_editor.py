# Editors that keep the document open, on two mirrors A and B of one
# session: rounds of saves alternating between A's editor and B's, each
# save made without reading the other's changes first (FontForge and
# Inkscape do not reload). Every edit must survive: a stale save must not
# take back what the other side changed since the editor loaded the file.
# Then one property changed on both sides: the later save stands and its
# user is told whose change it replaced. Also with editors that reload
# before every edit.
# An animation (Lottie .json, edited as text) takes the same rounds.
#   /usr/bin/python3 stale_editor.py BIN [font|svg|anim] [stale|reload] [ROUNDS]
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import (FONT, Editor, Failure, World, animation, attrs, drawing, keyframes, main, read,  # noqa: E402
                     sanitizer_reports, stop, wait_for, widths)

GAP = 0.5  # seconds between two saves: about what was measured losing work before


def run_one(binary, kind, mode, rounds):
    failures = []
    w = World(binary, f'join_{kind}_{mode}')
    try:
        ext = {'font': 'sfd', 'svg': 'svg', 'anim': 'json'}[kind]
        served = w.path('srv', f'doc.{ext}')
        if kind == 'font':
            shutil.copy(FONT, served)
            os.chmod(served, 0o644)
        elif kind == 'anim':
            animation(served, layers=8)
        else:
            drawing(served)
        srv = w.serve(served)
        a_path, b_path = w.path('a', f'doc.{ext}'), w.path('b', f'doc.{ext}')
        a = w.join('fa', a_path, srv.endpoint)
        b = w.join('fb', b_path, srv.endpoint)
        ea, eb = Editor(w, kind, a_path, 'ea'), Editor(w, kind, b_path, 'eb')
        if kind == 'font':
            targets = ([chr(ord('a') + i) for i in range(13)], [chr(ord('A') + i) for i in range(13)])
            value = lambda i: str(500 + 7 * i)  # noqa: E731
            edit = lambda t, v: f'width {t} {v}'  # noqa: E731
            values = lambda path: widths(read(path))  # noqa: E731
        elif kind == 'anim':  # A on layers 1-4, B on 5-8, every keyframe
            targets = ([(1 + k % 4, (0, 30, 60)[k // 4 % 3]) for k in range(12)],
                       [(5 + k % 4, (0, 30, 60)[k // 4 % 3]) for k in range(12)])
            value = lambda i: (1000 + i, 2000 + 3 * i, 0)  # noqa: E731
            edit = lambda t, v: f'kf {t[0]} {t[1]} {v[0]} {v[1]} {v[2]}'  # noqa: E731
            values = lambda path: keyframes(path)  # noqa: E731
        else:
            targets = ([f'r{i}' for i in range(20)], [f'r{20 + i}' for i in range(20)])
            value = lambda i: f'#{(i * 2654435761) % 0xffffff:06x}'  # noqa: E731
            edit = lambda t, v: f'attr {t} fill {v}'  # noqa: E731
            values = lambda path: attrs(read(path), 'fill')  # noqa: E731
        edits = []  # (side, target, value), in order
        for i in range(rounds):
            side = i % 2
            ed = (ea, eb)[side]
            if mode == 'reload':
                ed.do('reload')
            t, v = targets[side][i // 2], value(i)
            ed.do(edit(t, v))
            ed.do('save ' + ('rename' if kind != 'font' and (i // 2) % 2 else 'inplace'))
            edits.append((side, t, v))
            time.sleep(GAP)

        conflict_ok = True
        if mode == 'stale':
            # one property on both sides: A's save lands in B's file, then B's
            # editor (which never read it) saves its own value over it
            t = {'font': 'x', 'svg': 'r50', 'anim': (3, 60)}[kind]
            va, vb = {'font': ('701', '702'), 'svg': ('#aa0000', '#bb0000'), 'anim': ((11, 12, 0), (21, 22, 0))}[kind]
            ea.do(edit(t, va))
            ea.do('save')
            try:
                wait_for(f"A's change of {t} reaches B's file", lambda: values(b_path).get(t) == va)
            except Failure as e:
                failures.append(str(e))
            eb.do(edit(t, vb))
            eb.do('save')
            edits.append((1, t, vb))
            told = None
            try:
                wait_for("B's mirror says whose change the save replaced",
                         lambda: 'replaced a change by fa' in read(b.err))
                told = [ln for ln in read(b.err).splitlines() if 'replaced a change by fa' in ln][0]
                print(f"  B was told: {told}")
            except Failure as e:
                failures.append(str(e))
            key = {'font': 'width', 'svg': 'fill', 'anim': 's'}[kind]
            shown = (lambda v: '[' + ','.join(map(str, v)) + ']') if kind == 'anim' else str  # canonical JSON
            conflict_ok = bool(told) and key in told and f'{shown(va)} -> {shown(vb)}' in told.replace('"', '')
            if told and not conflict_ok:
                failures.append(f"the conflict line does not give {key}, {va} -> {vb}: {told}")

        def missing(path):
            have = values(path)
            final = {}
            for _, t, v in edits:
                final[t] = v
            return [(t, v, have.get(t)) for t, v in final.items() if have.get(t) != v]

        try:
            wait_for("both files hold every edit", lambda: not missing(a_path) and not missing(b_path), timeout=30)
        except Failure:
            pass  # counted below
        ea.quit()
        eb.quit()
        server = w.watch_hash(srv.endpoint)
        for p in (a, b):
            rc = stop(p)
            if rc != 0:
                failures.append(f"join {p.name} stopped with status {rc}: {read(p.err)[-500:]}")
        ha = re.findall(r'^seq (\d+) hash (\S+)', read(a.out), re.M)
        hb = re.findall(r'^seq (\d+) hash (\S+)', read(b.out), re.M)
        if not server or not ha or not hb or ha[-1] != server or hb[-1] != server:
            failures.append(f"replicas differ at the end: A {ha[-1:]}, B {hb[-1:]}, server {server}")
        rc = stop(srv)
        if rc != 0:
            failures.append(f"serve stopped with status {rc}")
        lost_server, lost_a, lost_b = missing(served), missing(a_path), missing(b_path)
        per_side = [sum(1 for s, _, _ in edits if s == k) for k in (0, 1)]
        print(f"{kind}, {mode} editors: {rounds} rounds, {len(edits)} edits ({per_side[0]} by A's editor, "
              f"{per_side[1]} by B's); lost: {len(lost_server)} in the server's file, {len(lost_a)} in A's, "
              f"{len(lost_b)} in B's")
        for t, v, got in lost_server[:10]:
            print(f"  lost: {t} = {v} (the server's file has {got})")
        if lost_server or lost_a or lost_b:
            failures.append(f"{kind}/{mode}: {len(lost_server)} edits lost")
        conflicts = len(re.findall('replaced a change by', read(a.err) + read(b.err)))
        if mode == 'stale' and conflicts != 1:
            failures.append(f"{conflicts} conflicts reported; the only one is the property both sides changed")
        bad = sanitizer_reports(w)
        if bad:
            failures.append(f"sanitizer reports in {bad}")
    finally:
        w.close()
    return failures


def run(binary):
    kinds = [sys.argv[2]] if len(sys.argv) > 2 else ['font', 'svg', 'anim']
    modes = [sys.argv[3]] if len(sys.argv) > 3 else ['stale', 'reload']
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    failures = []
    for kind in kinds:
        for mode in modes:
            t0 = time.monotonic()
            failures += run_one(binary, kind, mode, rounds)
            print(f"  ({time.monotonic() - t0:.0f} s)")
    return failures


if __name__ == '__main__':
    sys.exit(main(run))
