# What `ensemble join --file PATH` leaves on disk when a collaborator's
# edit makes it rewrite PATH: a 0600 PATH stays 0600 and keeps its owner;
# a PATH that is a symbolic link stays one, the file it names gets the
# edit (and an editor's save through the link is sent); a join killed as
# it renames its write into place (strace delivers SIGKILL then) leaves
# PATH whole, and the temporary file it left is gone once the next join
# has written PATH. Beside PATH nothing is left but join's own .PATH.join/.
# The collaborator is a second join whose file is edited and saved by
# rename, as an editor does. The kill is skipped without strace, the owner
# check when not run as root.
#   /usr/bin/python3 files.py BIN
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import FONT, WAIT, Failure, World, main, read, sanitizer_reports, stop, wait_for, widths  # noqa: E402


def set_width(path, glyph, width, how):
    """An editor's save of path with glyph's width changed: by rename
    beside the file path names, or in place (through any link)."""
    text = read(path)
    new, n = re.subn(r'(^StartChar: ' + re.escape(glyph) + r'\n(?:(?!StartChar:)[^\n]*\n)*?Width: )-?\d+',
                     lambda m: m.group(1) + str(width), text, count=1, flags=re.M)
    if n != 1:
        raise Failure(f"no glyph {glyph} in {path}")
    if how == 'rename':
        tmp = path + '.editor-save'
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(new)
        os.replace(tmp, path)
    else:
        with open(path, 'r+', encoding='utf-8') as f:
            f.seek(0)
            f.truncate()
            f.write(new)


def others(d, *names):
    """What d holds (dot files too) besides names."""
    return sorted(n for n in os.listdir(d) if n not in names)


def can_strace():
    if not shutil.which('strace'):
        return False
    try:
        return subprocess.run(['strace', '-f', '-qq', '-o', '/dev/null', 'true'], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run(binary):
    failures = []
    count = [0]

    def check(desc, ok):
        count[0] += 1
        print(f"  {'ok' if ok else 'FAIL'}: {desc}")
        if not ok:
            failures.append(desc)
        return ok

    def wait(desc, cond):
        try:
            wait_for(desc, cond)
            return check(desc, True)
        except Failure:
            return check(desc, False)

    def lines(p, word):
        return len(re.findall(r'^' + word + ' ', read(p.out), re.M))

    owner = None
    if os.geteuid() == 0:
        try:
            nobody = pwd.getpwnam('nobody')
            owner = (nobody.pw_uid, nobody.pw_gid)
        except KeyError:
            pass

    w = World(binary, 'join_files')
    try:
        served = w.path('srv', 'font.sfd')
        shutil.copy(FONT, served)
        os.chmod(served, 0o644)
        srv = w.serve(served)
        b_path = w.path('b', 'font.sfd')
        b = w.join('fb', b_path, srv.endpoint)

        def collaborator(glyph, width):
            """B's user saves an edit; B sends it."""
            n = lines(b, 'sent')
            set_width(b_path, glyph, width, 'rename')
            wait_for(f"B sends glyph {glyph} width {width}", lambda: lines(b, 'sent') > n or b.poll() is not None)

        # --- a 0600 PATH, owned by another user --------------------------------------------
        m_path = w.path('mode', 'font.sfd')
        shutil.copy(FONT, m_path)  # the session's document: taken up as it is
        os.chmod(m_path, 0o600)
        if owner:
            os.chown(m_path, *owner)
        else:
            print("  skipped: the owner check (not root, or no user nobody)")
        a = w.join('fm', m_path, srv.endpoint)
        collaborator('a', 701)
        wait("the collaborator's edit reaches the 0600 PATH", lambda: widths(read(m_path)).get('a') == '701')
        st = os.lstat(m_path)
        check(f"PATH is still a regular file of mode 0600 (now {oct(st.st_mode)})",
              os.path.isfile(m_path) and not os.path.islink(m_path) and st.st_mode & 0o7777 == 0o600)
        if owner:
            check(f"PATH keeps its owner {owner} (now {(st.st_uid, st.st_gid)})", (st.st_uid, st.st_gid) == owner)
        check("PATH was rewritten by join (wrote ...)", lines(a, 'wrote') >= 1)
        check("join stops cleanly", stop(a) == 0)
        left = others(w.path('mode'), 'font.sfd', '.font.sfd.join')
        check(f"nothing else beside PATH: {left}", not left)
        check("the 0600 PATH is still 0600 after the stop", os.lstat(m_path).st_mode & 0o7777 == 0o600)

        # --- PATH a symbolic link -----------------------------------------------------------
        real = w.path('real', 'font.sfd')
        link = w.path('link', 'mine.sfd')  # a name of its own: the target's events carry the target's
        shutil.copy(m_path, real)  # the session's document now
        os.chmod(real, 0o640)
        os.symlink('../real/font.sfd', link)
        a = w.join('fl', link, srv.endpoint)
        collaborator('b', 702)
        wait("the collaborator's edit reaches the link's target", lambda: widths(read(real)).get('b') == '702')
        check("PATH is still a symbolic link", os.path.islink(link))
        check("the link still names ../real/font.sfd", os.path.islink(link) and os.readlink(link) == '../real/font.sfd')
        check(f"the target keeps mode 0640 (now {oct(os.stat(real).st_mode & 0o7777)})",
              os.stat(real).st_mode & 0o7777 == 0o640)
        left = others(w.path('real'), 'font.sfd')
        check(f"nothing else beside the target: {left}", not left)
        # the other way: an editor that opened PATH saves in place through the link
        n = lines(a, 'sent')
        set_width(link, 'c', 703, 'inplace')
        wait("a save through the link is sent", lambda: lines(a, 'sent') > n)
        wait("a save through the link reaches the collaborator", lambda: widths(read(b_path)).get('c') == '703')
        collaborator('d', 704)
        wait("a second edit reaches the link's target", lambda: widths(read(real)).get('d') == '704')
        check("the target still holds the save made through the link", widths(read(real)).get('c') == '703')
        check("PATH is still a symbolic link after the second write", os.path.islink(link))
        check("join through the link stops cleanly", stop(a) == 0)
        left = others(w.path('link'), 'mine.sfd', '.mine.sfd.join') + others(w.path('real'), 'font.sfd')
        check(f"nothing else beside the link or its target: {left}", not left)

        # --- a join killed as it renames its write into place -------------------------------
        if not can_strace():
            print("  skipped: the killed join (strace is not installed or cannot trace here)")
        else:
            k_path = w.path('kill', 'font.sfd')
            a = w.join('fk', k_path, srv.endpoint)  # writes PATH, kept as its version
            check("the first join of the kill part stops cleanly", stop(a) == 0)
            before = read(k_path)
            # LeakSanitizer cannot run under ptrace: the traced join goes without it
            env = dict(os.environ)
            env['ASAN_OPTIONS'] = (env['ASAN_OPTIONS'] + ':' if env.get('ASAN_OPTIONS') else '') + 'detect_leaks=0'
            # the second rename of the traced join is PATH's: taking PATH up as join
            # left it renames nothing, and a write keeps its version beside PATH
            # (a rename in .font.sfd.join) before it renames the new PATH into place
            renames = 'rename,renameat,renameat2'
            pidfile = w.path('fk-traced.pid')
            t = w.spawn(['strace', '-f', '-qq', '-o', '/dev/null', '-e', 'trace=' + renames,
                         '-e', f'inject={renames}:signal=KILL:when=2',
                         'sh', '-c', 'echo $$ >"$0"; exec "$@"', pidfile,
                         binary, 'join', '--name', 'fk', '--file', k_path, srv.endpoint], 'fk-traced', env=env)
            try:
                wait_for("the traced join takes up PATH",
                         lambda: re.search(r'^mirroring ', read(t.out), re.M) or t.poll() is not None)
            except Failure:
                pass
            check("the traced join takes PATH up without writing it", t.poll() is None and lines(t, 'wrote') == 0)
            collaborator('e', 705)
            try:
                rc = t.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                rc = None  # never renamed: stopped here, the join too (strace killed would leave it running)
                try:
                    os.kill(int(read(pidfile)), signal.SIGKILL)
                except (ValueError, OSError):
                    pass
                t.kill()
                t.wait()
            check(f"the join was killed at its rename (status {rc})", rc in (-9, 137))
            check("the killed join left PATH whole, as it was", read(k_path) == before)
            temps = others(w.path('kill'), 'font.sfd', '.font.sfd.join')
            print(f"  the killed join left: {temps}")
            check("the killed join left its temporary file beside PATH",
                  len(temps) == 1 and '.tmp.' in temps[0])
            a = w.join('fk2', k_path, srv.endpoint, wait=False)
            wait("the next join writes the edit into PATH", lambda: widths(read(k_path)).get('e') == '705')
            left = others(w.path('kill'), 'font.sfd', '.font.sfd.join')
            check(f"the next join's write removed what the killed one left: {left}", not left)
            check("the next join says nothing of an edit made while it was stopped",
                  'while join was not running' not in read(a.err))
            check("the next join stops cleanly", stop(a) == 0)

        check("B's join stops cleanly", stop(b) == 0)
        check("the server stops cleanly", stop(srv) == 0)
        final = widths(read(served))
        want = {'a': '701', 'b': '702', 'c': '703', 'd': '704'}
        if can_strace():
            want['e'] = '705'
        check(f"the server's font holds every edit {want}", all(final.get(g) == v for g, v in want.items()))
        bad = sanitizer_reports(w)
        for name in bad:
            print(f"    | {name}: {read(os.path.join(w.dir, name))[:2000]}")
        check(f"no sanitizer report {bad}", not bad)
    except Failure as e:  # a step that could not go on: the rest is not checked
        check(str(e), False)
    finally:
        print(f"{count[0]} checks, {len(failures)} failed")
        w.close()
    return failures


if __name__ == '__main__':
    sys.exit(main(run))
