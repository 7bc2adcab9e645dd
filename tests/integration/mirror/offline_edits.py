# Edits of PATH made while `ensemble join` was stopped are the user's: at
# the next join they are merged with what collaborators did meanwhile and
# sent, never overwritten. join keeps what it last wrote beside PATH (in
# .PATH.join) for that, with the session's identity: the same PATH joined
# to another session is refused rather than merged. Also a join killed
# right after sending a save loses nothing at its restart.
#   /usr/bin/python3 offline_edits.py BIN
import os
import re
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import FONT, Editor, Failure, World, main, read, stop, wait_for, widths  # noqa: E402


def run(binary):
    failures = []

    def check(desc, ok):
        print(f"  {'ok' if ok else 'FAIL'}: {desc}")
        if not ok:
            failures.append(desc)

    def wait(desc, cond, timeout=None):
        try:
            wait_for(desc, cond, **({'timeout': timeout} if timeout else {}))
            check(desc, True)
        except Failure:
            check(desc, False)

    w = World(binary, 'join_offline')
    try:
        served = w.path('srv', 'font.sfd')
        shutil.copy(FONT, served)
        os.chmod(served, 0o644)
        srv = w.serve(served)
        a_path, b_path = w.path('a', 'font.sfd'), w.path('b', 'font.sfd')
        a = w.join('fa', a_path, srv.endpoint)
        b = w.join('fb', b_path, srv.endpoint)
        check("A's join stops cleanly", stop(a) == 0)
        kept = os.listdir(w.path('a', '.font.sfd.join')) if os.path.isdir(w.path('a', '.font.sfd.join')) else []
        print(f"  kept beside A's file: {sorted(kept)}")

        # while A's join is stopped: FontForge edits A's file, and B's user changes another glyph
        ea = Editor(w, 'font', a_path, 'ea-offline')
        ea.do('width a 611')
        ea.do('save')
        ea.quit()
        eb = Editor(w, 'font', b_path, 'eb')
        eb.do('width b 733')
        eb.do('save')
        wait("B's change is sent", lambda: re.search(r'^sent ', read(b.out), re.M))

        a = w.join('fa', a_path, srv.endpoint, wait=False)
        wait("A's edit made while join was stopped reaches B's file", lambda: widths(read(b_path)).get('a') == '611')
        wait("B's change reaches A's file", lambda: widths(read(a_path)).get('b') == '733')
        check("A's edit is still in A's file", widths(read(a_path)).get('a') == '611')
        told = [ln for ln in read(a.err).splitlines() if 'while join was not running' in ln]
        print(f"  A said: {told[0] if told else '(nothing)'}")
        check("A says the file was changed while join was not running", bool(told))

        # A's editor saves and A's join is killed at once: nothing is lost at the restart
        ea = Editor(w, 'font', a_path, 'ea')
        ea.do('width c 622')
        n = len(re.findall(r'^sent ', read(a.out), re.M))
        ea.do('save')
        wait("A sends the save", lambda: len(re.findall(r'^sent ', read(a.out), re.M)) > n)
        a.send_signal(signal.SIGKILL)
        a.wait()
        eb.do('width d 744')
        eb.do('save')
        ea.do('width e 655')  # A's editor goes on, never reloading
        ea.do('save')
        a = w.join('fa', a_path, srv.endpoint, wait=False)
        for g, v, where in (('c', '622', b_path), ('d', '744', a_path), ('e', '655', b_path), ('b', '733', a_path),
                            ('a', '611', b_path)):
            wait(f"after the kill, {g} = {v} in {os.path.basename(os.path.dirname(where))}'s file",
                 lambda g=g, v=v, where=where: widths(read(where)).get(g) == v)
        ea.quit()
        eb.quit()
        check("A's join stops cleanly after the restart", stop(a) == 0)
        check("B's join stops cleanly", stop(b) == 0)
        check("the server stops cleanly", stop(srv) == 0)
        final = widths(read(served))
        check("the server's font holds every edit",
              all(final.get(g) == v for g, v in (('a', '611'), ('b', '733'), ('c', '622'), ('d', '744'),
                                                   ('e', '655'))))

        # the same PATH, now joined to another session: its record is not this session's
        served2 = w.path('srv2', 'font.sfd')
        shutil.copy(FONT, served2)
        os.chmod(served2, 0o644)
        srv2 = w.serve(served2, name='serve2')
        before = read(a_path)
        a2 = w.join('fa2', a_path, srv2.endpoint, wait=False)
        try:
            a2.wait(timeout=30)
        except Exception:
            a2.kill()
            a2.wait()
        print(f"  joined to another session: status {a2.returncode}: {read(a2.err).strip()}")
        check("another session's join refuses PATH", a2.returncode == 1 and '--replace' in read(a2.err))
        check("and says the kept state belongs to another session", 'another session' in read(a2.err))
        check("PATH is left as it was", read(a_path) == before)
        check("the other server stops cleanly", stop(srv2) == 0)
    finally:
        w.close()
    return failures


if __name__ == '__main__':
    sys.exit(main(run))
