# `ensemble join --file PATH` over a file that is already there: one that
# differs from the session (the user's own font, or something that is not
# a font at all) is refused with a message naming --replace and left
# untouched; with --replace it is moved aside to a backup that join names,
# and PATH gets the session's document; a PATH that already holds the
# session's document is simply taken up.
#   /usr/bin/python3 existing_file.py BIN
import filecmp
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import FONT, WAIT, World, main, read, stop  # noqa: E402


def run(binary):
    failures = []

    def check(desc, ok):
        print(f"  {'ok' if ok else 'FAIL'}: {desc}")
        if not ok:
            failures.append(desc)

    w = World(binary, 'join_existing')
    try:
        served = w.path('srv', 'font.sfd')
        shutil.copy(FONT, served)
        os.chmod(served, 0o644)
        srv = w.serve(served)
        with open(FONT, encoding='utf-8') as f:
            theirs = f.read()
        mine = theirs.replace('StartChar: a\nEncoding: 97 97 101\nWidth: 640\n',
                              'StartChar: a\nEncoding: 97 97 101\nWidth: 999\n', 1)
        assert mine != theirs
        path = w.path('user', 'font.sfd')

        def join_for(args, seconds=4):
            return subprocess.run([binary, 'join', '--name', 'u', '--seconds', str(seconds), '--file', path, *args,
                                   srv.endpoint], capture_output=True, text=True, timeout=WAIT)

        # the user's own font, different from the session's
        with open(path, 'w', encoding='utf-8') as f:
            f.write(mine)
        r = join_for([])
        print(f"  join over a different font: status {r.returncode}: {r.stderr.strip()}")
        check("join refuses a PATH that differs from the session", r.returncode == 1)
        check("the refusal names --replace", '--replace' in r.stderr)
        check("the user's font is left as it was", read(path) == mine)
        check("no backup is made without --replace", not os.path.exists(w.path('user', 'font-before-join.sfd')))

        # something that is not a font at all
        with open(path, 'w', encoding='utf-8') as f:
            f.write('my notes, not a font\n')
        r = join_for([])
        print(f"  join over a file that does not read: status {r.returncode}: {r.stderr.strip()}")
        check("join refuses a PATH that does not read", r.returncode == 1 and '--replace' in r.stderr)
        check("that file is left as it was", read(path) == 'my notes, not a font\n')

        # --replace: moved aside to a backup join names, PATH gets the session's document
        with open(path, 'w', encoding='utf-8') as f:
            f.write(mine)
        r = join_for(['--replace'])
        backup = w.path('user', 'font-before-join.sfd')
        print(f"  join --replace: status {r.returncode}: {r.stderr.strip()}")
        check("join --replace runs", r.returncode == 0)
        check("join --replace names the backup", backup in r.stderr)
        check("the backup holds the user's font", read(backup) == mine)
        check("PATH holds the session's document", filecmp.cmp(path, served, shallow=False))

        # a second different file with no record of this join (edits of a
        # file join did write are merged instead: join_offline_edits.sh),
        # a second backup
        shutil.rmtree(w.path('user', '.font.sfd.join'))
        with open(path, 'w', encoding='utf-8') as f:
            f.write(mine.replace('Width: 999', 'Width: 998', 1))
        r = join_for(['--replace'])
        backup2 = w.path('user', 'font-before-join-2.sfd')
        check("a second --replace keeps the first backup and names a second", read(backup) == mine and
              'Width: 998' in read(backup2) and backup2 in r.stderr)

        # a file that already holds the session's document, and no record of join
        shutil.rmtree(w.path('user', '.font.sfd.join'), ignore_errors=True)
        shutil.copy(FONT, path)
        r = join_for([], seconds=3)
        print(f"  join over the session's own document: status {r.returncode}")
        check("join takes up a PATH that holds the session's document", r.returncode == 0 and
              filecmp.cmp(path, FONT, shallow=False))
        check("without a backup", not os.path.exists(w.path('user', 'font-before-join-3.sfd')))
        rc = stop(srv)
        check("the server stops cleanly", rc == 0)
        check("the server's font is unchanged", filecmp.cmp(served, FONT, shallow=False))
    finally:
        w.close()
    return failures


if __name__ == '__main__':
    sys.exit(main(run))
