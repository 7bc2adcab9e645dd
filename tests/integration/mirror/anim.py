# `ensemble join` on Lottie animations, as on fonts and drawings: a
# served animation mirrored into .json and .tgs files byte for byte; a
# text editor's save of one keyframe reaching the other mirrors and the
# server; two editors that never reload editing different layers at the
# same time (each saving while the other's change is in flight) until
# every file and the server hold the same bytes with every edit; one
# keyframe changed on both sides reported with both values; a mirror
# killed with SIGKILL and joined again losing nothing; a .lottie refused;
# watch naming the layers and keyframes each change touched. A corpus
# animation too when the corpus is there.
#   /usr/bin/python3 anim.py BIN
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import (SRC, WAIT, Editor, Failure, World, animation, keyframes, main, read,  # noqa: E402
                     sanitizer_reports, stop, wait_for)

ROUNDS = 12


def raw(path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        return b''
    return gzip.decompress(data) if data[:2] == b'\x1f\x8b' else data


def corpus_dir():
    base = os.environ.get('ENSEMBLE_CORPUS') or os.path.join(SRC, '..', 'shared', 'corpus')
    return os.path.join(base, 'lottie')


def corpus_ball():
    p = os.path.join(corpus_dir(), 'docs', 'docs_static_examples_bouncy_ball.json')
    return p if os.path.exists(p) else None


def corpus_files():
    out = []
    for root, _, names in os.walk(corpus_dir()):
        out += [os.path.join(root, n) for n in names if n.endswith('.json')]
    return sorted(out)


def run(binary):
    failures = []

    def check(desc, ok, detail=''):
        print(f"  {'ok' if ok else 'FAIL'}: {desc}{(' (' + detail + ')') if detail and not ok else ''}")
        if not ok:
            failures.append(desc)

    def wait(desc, cond, timeout=None):
        try:
            wait_for(desc, cond, **({'timeout': timeout} if timeout else {}))
            check(desc, True)
            return True
        except Failure:
            check(desc, False)
            return False

    def close(w):
        bad = sanitizer_reports(w)
        check(f"no sanitizer reports in {os.path.basename(w.dir)}", not bad, repr(bad))
        w.close()

    w = World(binary, 'join_anim')
    try:
        served = w.path('srv', 'anim.json')
        animation(served)
        original = raw(served)
        srv = w.serve(served, extra=('--checkpoint-every', '1'))
        watcher = w.spawn([binary, 'watch', '--seconds', str(WAIT * 3), srv.endpoint], 'watch')
        jwatcher = w.spawn([binary, 'watch', '--json', '--seconds', str(WAIT * 3), srv.endpoint], 'watch-json')
        a_path, b_path, c_path = w.path('a', 'anim.json'), w.path('b', 'anim.json'), w.path('c', 'anim.tgs')
        a = w.join('fa', a_path, srv.endpoint)
        b = w.join('fb', b_path, srv.endpoint)
        c = w.join('fc', c_path, srv.endpoint)
        check("join --file x.json writes the server's bytes", raw(a_path) == original and read(b_path) == read(served))
        with open(c_path, 'rb') as f:
            check("join --file x.tgs writes gzip", f.read(2) == b'\x1f\x8b')
        check("the .tgs holds the server's bytes inside", raw(c_path) == original)

        # a dotLottie archive is refused before anything is written
        r = subprocess.run([binary, 'join', '--file', w.path('d', 'anim.lottie'), srv.endpoint], capture_output=True,
                           text=True, timeout=WAIT)
        check("join --file x.lottie is refused with status 2", r.returncode == 2 and 'dotLottie' in r.stderr,
              r.stderr.strip()[:200])
        check("and writes nothing", not os.path.exists(w.path('d', 'anim.lottie')))
        r = subprocess.run([binary, 'join', '--seconds', '10', '--file', w.path('d', 'anim.svg'), srv.endpoint],
                           capture_output=True, text=True, timeout=WAIT)
        check("join --file x.svg on an animation's session exits 1 naming the kinds",
              r.returncode == 1 and 'kind "lottie"' in r.stderr, r.stderr.strip()[:200])

        # an animation of the user's own at PATH is refused, or with --replace moved aside
        mine = w.path('e', 'anim.json')
        animation(mine, layers=2)
        before = read(mine)
        r = subprocess.run([binary, 'join', '--seconds', '10', '--file', mine, srv.endpoint], capture_output=True,
                           text=True, timeout=WAIT)
        check("an existing, other animation at PATH is refused with status 1, untouched",
              r.returncode == 1 and '--replace' in r.stderr and read(mine) == before, r.stderr.strip()[:200])
        e = w.join('fe', mine, srv.endpoint, extra=('--replace',))
        check("with --replace it is kept as anim-before-join.json and PATH takes the session's bytes",
              read(w.path('e', 'anim-before-join.json')) == before and raw(mine) == original)
        check("join fe stops cleanly", stop(e) == 0)

        # one keyframe rewritten in A's text reaches B, C and the server, and only its line changes
        ea = Editor(w, 'anim', a_path, 'ea')
        b_before = read(b_path)
        ea.do('kf 2 30 777 333 0')
        ea.do('save')
        want = {(2, 30): (777, 333, 0)}
        done = lambda p: all(keyframes(p).get(k) == v for k, v in want.items())  # noqa: E731
        wait("A's keyframe edit reaches B's file", lambda: done(b_path))
        wait("and C's .tgs", lambda: done(c_path))
        wait("and the server's file", lambda: done(served))
        changed = [(x, y) for x, y in zip(b_before.splitlines(), read(b_path).splitlines()) if x != y]
        check("B's file changed on the edited keyframe's line alone",
              len(b_before.splitlines()) == len(read(b_path).splitlines()) and len(changed) == 1 and
              '"t": 30, "s": [777, 333, 0]' in changed[0][1], repr(changed[:3]))

        # two editors that never reload, A on layers 1-4 and B on 5-8, saving at once
        eb = Editor(w, 'anim', b_path, 'eb')
        for i in range(ROUNDS):
            ta = (1 + i % 4, (0, 30, 60)[i // 4 % 3])
            tb = (5 + i % 4, (0, 30, 60)[i // 4 % 3])
            va, vb = (1000 + i, 2000 + i, 0), (3000 + i, 4000 + i, 0)
            ea.do(f'kf {ta[0]} {ta[1]} {va[0]} {va[1]} 0')
            eb.do(f'kf {tb[0]} {tb[1]} {vb[0]} {vb[1]} 0')
            ea.do('save ' + ('rename' if i % 2 else 'inplace'))
            eb.do('save ' + ('inplace' if i % 2 else 'rename'))
            want[ta], want[tb] = va, vb
            time.sleep(0.25 if i % 3 else 0.05)

        def same():
            ra, rb, rc, rs = raw(a_path), raw(b_path), raw(c_path), raw(served)
            return ra and ra == rb == rc == rs

        wait("A's, B's, C's and the server's files end byte-identical", same, timeout=WAIT)
        for name, p in (('A', a_path), ('B', b_path), ('C', c_path), ('the server', served)):
            have = keyframes(p)
            lost = [(k, v, have.get(k)) for k, v in want.items() if have.get(k) != v]
            check(f"{name}'s file holds all {len(want)} edited keyframes (python json)", not lost, repr(lost[:5]))
        untouched = {k: v for k, v in keyframes(served).items() if k not in want}
        check("keyframes nobody edited are as they were",
              all(v == (k[0] * 40 + k[1], k[0] * 50, 0) for k, v in untouched.items()) and len(untouched) == 24 - len(want))

        # one keyframe on both sides: A's save lands in B's file, then B's editor (which never read it) saves over it
        ea.do('kf 3 60 11 12 0')
        ea.do('save')
        wait("A's change of layer 3's keyframe at 60 reaches B's file", lambda: keyframes(b_path).get((3, 60)) == (11, 12, 0))
        eb.do('kf 3 60 21 22 0')
        eb.do('save')
        want[(3, 60)] = (21, 22, 0)
        told = None
        if wait("B's mirror says whose change its save replaced", lambda: 'replaced a change by fa' in read(b.err)):
            told = [ln for ln in read(b.err).splitlines() if 'replaced a change by fa' in ln][0]
            print(f"  B was told: {told}")
        check("the report gives both sides' values (canonical JSON)", bool(told) and '[11,12,0] -> [21,22,0]' in told)
        wait("the later save stands everywhere",
             lambda: all(keyframes(p).get((3, 60)) == (21, 22, 0) for p in (a_path, c_path, served)))
        check("no other conflict was reported", len(re.findall('replaced a change|stands over', read(a.err) + read(b.err) + read(c.err))) == 1,
              (read(a.err) + read(b.err))[-400:])

        # a save of B's file that does not read: said once with where, nothing sent, the file left alone
        broken = read(b_path)[:-40]
        with open(b_path, 'w', encoding='utf-8') as f:
            f.write(broken)
        wait("B says its broken file does not read, with line and column",
             lambda: re.search(r'does not read \(line \d+, column \d+: ', read(b.err)))
        ea.do('kf 8 0 81 82 0')
        ea.do('save')
        want[(8, 0)] = (81, 82, 0)
        wait("A's next change reaches C and the server meanwhile",
             lambda: keyframes(c_path).get((8, 0)) == (81, 82, 0) and keyframes(served).get((8, 0)) == (81, 82, 0))
        time.sleep(0.5)
        check("B's broken file is not written over", read(b_path) == broken)
        eb.do('save')  # B's editor saves its whole text again
        wait("B's file reads again and takes A's change", lambda: keyframes(b_path).get((8, 0)) == (81, 82, 0))

        # A killed mid-session: its editor goes on saving, B edits meanwhile; A joins again
        ea.do('kf 4 0 5 6 0')
        n = len(re.findall(r'^sent ', read(a.out), re.M))
        ea.do('save')
        wait("A sends the save", lambda: len(re.findall(r'^sent ', read(a.out), re.M)) > n)
        a.send_signal(signal.SIGKILL)
        a.wait()
        want[(4, 0)] = (5, 6, 0)
        eb.do('kf 6 30 61 62 0')
        eb.do('save')
        want[(6, 30)] = (61, 62, 0)
        ea.do('kf 1 60 71 72 0')  # A's editor goes on, never reloading
        ea.do('save')
        want[(1, 60)] = (71, 72, 0)
        a = w.join('fa', a_path, srv.endpoint, wait=False)
        wait("after the kill and the new join, every file holds every edit",
             lambda: all(all(keyframes(p).get(k) == v for k, v in want.items()) for p in (a_path, b_path, c_path, served)))
        wait("and the four files are byte-identical again", same)

        ea.quit()
        eb.quit()
        server = w.watch_hash(srv.endpoint)
        hashes = []
        for p in (a, b, c):
            rc = stop(p)
            check(f"join {p.name} stops cleanly", rc == 0, read(p.err)[-300:])
            h = re.findall(r'^seq (\d+) hash (\S+)', read(p.out), re.M)
            hashes.append(h[-1] if h else None)
        check("the three mirrors and the server end at one seq and hash", server and all(h == server for h in hashes),
              f"{hashes} vs {server}")
        stop(watcher)
        out = read(watcher.out)
        lines = [ln for ln in out.splitlines() if ln.startswith('  layer')]
        print(f"  watch printed {len(re.findall(r'^txn ', out, re.M))} txn lines, {len(lines)} layer lines, e.g.:")
        for ln in lines[:3]:
            print('   ' + ln)
        check("watch names the layer and keyframe of A's first edit", re.search(r'^  layer 2 "L2": keyframe p t=30$', out, re.M))
        check("watch names the layers of the concurrent edits",
              all(re.search(rf'^  layer {n} "L{n}": keyframe', out, re.M) for n in range(1, 9)))
        stop(jwatcher)
        import json
        try:
            events = [json.loads(ln) for ln in read(jwatcher.out).splitlines()]
            txns = [e for e in events if e['event'] == 'txn']
            first = next(e for e in txns if e['layers'])
            check("watch --json: every line is JSON, the first edit's layers member names it",
                  first['layers'] == [{'ind': '2', 'name': 'L2', 'precomposition': None, 'keyframes': ['p t=30'],
                                       'more_keyframes': 0, 'other': 0}] and first['deleted'] == 0, repr(first))
            check("watch --json: as many txn events as the text watch printed",
                  len(txns) == len(re.findall(r'^txn ', out, re.M)))
        except (ValueError, KeyError, StopIteration) as e:
            check("watch --json prints JSON with layers", False, repr(e))
        check("the server stops cleanly", stop(srv) == 0)
        final = keyframes(served)
        check("the server's file holds every edit", all(final.get(k) == v for k, v in want.items()))
    finally:
        close(w)

    # a session served from a .tgs: a .json mirror rewritten whole by a
    # script (json.load, json.dump) and edited while its join was stopped
    w = World(binary, 'join_anim_tgs')
    try:
        plain = w.path('plain.json')
        animation(plain, precomp=True)
        served = w.path('srv', 'anim.tgs')
        with open(plain, 'rb') as f, open(served, 'wb') as g:
            g.write(gzip.compress(f.read()))
        srv = w.serve(served, extra=('--checkpoint-every', '1'))
        watcher = w.spawn([binary, 'watch', '--seconds', str(WAIT * 3), srv.endpoint], 'watch')
        a_path, b_path = w.path('a', 'anim.json'), w.path('b', 'anim.tgs')
        a = w.join('fa', a_path, srv.endpoint)
        b = w.join('fb', b_path, srv.endpoint)
        check("tgs session: the .json mirror holds the animation inside the server's .tgs", raw(a_path) == raw(served))
        import json
        with open(a_path, encoding='utf-8') as f:
            d = json.load(f)
        d['layers'][6]['ks']['p']['k'][1]['s'] = [707, 708, 0]  # layer ind 7, t=30
        with open(a_path + '.tmp', 'w', encoding='utf-8') as f:
            json.dump(d, f, indent=1)
        os.replace(a_path + '.tmp', a_path)
        wait("tgs session: a script's json.dump of A's file reaches B's .tgs and the server",
             lambda: keyframes(b_path).get((7, 30)) == (707, 708, 0) and keyframes(served).get((7, 30)) == (707, 708, 0))
        wait("tgs session: every file holds the same animation", lambda: raw(a_path) == raw(b_path) == raw(served))
        with open(served, 'rb') as f:
            check("tgs session: the server's file is still gzip", f.read(2) == b'\x1f\x8b')
        check("tgs session: nothing else changed (python json)",
              {k: v for k, v in keyframes(served).items() if k != (7, 30)} ==
              {k: v for k, v in keyframes(plain).items() if k != (7, 30)})
        # a keyframe of the precomposition's layer, rewritten in A's text
        with open(a_path, encoding='utf-8') as f:
            text = f.read()
        m = re.search(r'"t": 60,\s*"s": \[\s*95\s*\]', text)
        with open(a_path, 'w', encoding='utf-8') as f:
            f.write(text[:m.start()] + '"t": 60, "s": [120]' + text[m.end():])
        wait("tgs session: the precomposition's keyframe reaches B's .tgs", lambda: b'"s": [120]' in raw(b_path))
        wait("tgs session: watch names the precomposition's layer and keyframe",
             lambda: re.search(r'^  layer 1 "Arm" in precomposition "arm": keyframe r t=60$', read(watcher.out), re.M))
        check("tgs session: join fa stops cleanly", stop(a) == 0)
        with open(a_path, encoding='utf-8') as f:
            text = f.read()
        with open(a_path, 'w', encoding='utf-8') as f:  # edited in place while join is stopped
            f.write(text.replace('"nm": "L5"', '"nm": "Five"', 1))
        with open(b_path, 'rb') as f:
            d = json.loads(gzip.decompress(f.read()))
        d['layers'][1]['ks']['p']['k'][0]['s'] = [202, 203, 0]  # B's user meanwhile: layer ind 2, t=0
        with open(b_path + '.tmp', 'wb') as f:
            f.write(gzip.compress(json.dumps(d).encode('utf-8')))
        os.replace(b_path + '.tmp', b_path)
        wait("tgs session: B's change is sent", lambda: keyframes(served).get((2, 0)) == (202, 203, 0))
        a = w.join('fa', a_path, srv.endpoint, wait=False)

        def names(p):
            t = raw(p).decode('utf-8', 'replace')
            return 'Five' in t and keyframes(p).get((2, 0)) == (202, 203, 0) and keyframes(p).get((7, 30)) == (707, 708, 0)
        wait("tgs session: the edit made while A's join was stopped and B's change meet in every file",
             lambda: all(names(p) for p in (a_path, b_path, served)))
        told = [ln for ln in read(a.err).splitlines() if 'while join was not running' in ln]
        check("tgs session: A says its file was changed while join was not running", bool(told))
        for p in (a, b):
            check(f"tgs session: join {p.name} stops cleanly", stop(p) == 0)
        check("tgs session: the server stops cleanly", stop(srv) == 0)
    finally:
        close(w)

    ball = corpus_ball()
    if not ball:
        print("  skipped: the corpus's bouncy ball (no corpus)")
        return failures
    w = World(binary, 'join_anim_corpus')
    try:
        served = w.path('srv', 'ball.json')
        shutil.copy(ball, served)
        os.chmod(served, 0o644)
        srv = w.serve(served, extra=('--checkpoint-every', '1'))
        a_path, b_path = w.path('a', 'ball.tgs'), w.path('b', 'ball.json')
        a = w.join('fa', a_path, srv.endpoint)
        b = w.join('fb', b_path, srv.endpoint)
        with open(ball, 'rb') as f:
            orig = f.read()
        check("corpus: the .tgs and .json mirrors hold the bouncy ball byte for byte",
              raw(a_path) == orig and raw(b_path) == orig)
        # a script rewrites one number of the text in B's file (the first "s" value of a keyframe)
        text = orig.decode('utf-8')
        m = re.search(r'"s"\s*:\s*\[\s*(-?[0-9.]+)', text)
        new = text[:m.start(1)] + '123.5' + text[m.end(1):]
        with open(b_path + '.tmp', 'w', encoding='utf-8') as f:
            f.write(new)
        os.replace(b_path + '.tmp', b_path)
        wait("corpus: the edit reaches the .tgs mirror and the server, byte for byte",
             lambda: raw(a_path) == new.encode('utf-8') and raw(served) == new.encode('utf-8'))
        for p in (a, b):
            check(f"corpus: join {p.name} stops cleanly", stop(p) == 0)
        check("corpus: the server stops cleanly", stop(srv) == 0)
    finally:
        close(w)

    # every corpus animation: a .json and a .tgs mirror get the server's
    # bytes, and a number rewritten in the .json's text ("op", which every
    # animation has) reaches the .tgs and the server byte for byte
    files = corpus_files()
    w = World(binary, 'join_anim_all')
    copied, edited, t0 = [], [], time.monotonic()
    try:
        for i, f in enumerate(files):
            served = w.path(f'srv{i}', 'anim.json')
            shutil.copy(f, served)
            os.chmod(served, 0o644)
            with open(f, 'rb') as g:
                orig = g.read()
            srv = w.serve(served, name=f'serve{i}', extra=('--checkpoint-every', '1'))
            a_path, c_path = w.path(f'a{i}', 'anim.json'), w.path(f'c{i}', 'anim.tgs')
            a = w.join(f'a{i}', a_path, srv.endpoint, extra=('--quiet',), wait=False)
            c = w.join(f'c{i}', c_path, srv.endpoint, extra=('--quiet',), wait=False)
            try:
                wait_for(f"{f}: both mirrors written", lambda: raw(a_path) == orig and raw(c_path) == orig, timeout=20)
                copied.append(f)
                text = orig.decode('utf-8')
                m = re.search(r'"op"\s*:\s*(-?[0-9.eE+-]+)', text)
                new = (text[:m.start(1)] + str(int(float(m.group(1))) + 1) + text[m.end(1):]).encode('utf-8')
                time.sleep(0.3)  # the mirror's own write settled, as an editor opens it after
                with open(a_path + '.tmp', 'wb') as g:
                    g.write(new)
                os.replace(a_path + '.tmp', a_path)
                wait_for(f"{f}: the edit reaches the .tgs and the server",
                         lambda: raw(c_path) == new and raw(served) == new, timeout=20)
                edited.append(f)
            except Failure as e:
                print(f"  {e}")
            for p in (a, c, srv):
                stop(p)
        print(f"  corpus, all {len(files)} animations: {len(copied)} mirrored byte for byte into .json and .tgs, "
              f"{len(edited)} edits reached the .tgs and the server byte for byte ({time.monotonic() - t0:.0f} s)")
        if files:
            check("corpus: every animation mirrored byte for byte", len(copied) == len(files))
            check("corpus: every animation's edit arrived byte for byte", len(edited) == len(files))
    finally:
        close(w)
    return failures


if __name__ == '__main__':
    sys.exit(main(run))
