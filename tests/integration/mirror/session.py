# Shared pieces of the `ensemble join` tests: a server and mirrors as
# processes of the tool, simulated editors (editor.py) as processes of
# their own, and readers of the values the tests edit. Every wait is
# bounded; a process still running at the end is stopped.
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
PY = '/usr/bin/python3'
FONT = os.path.join(SRC, 'examples', 'LibertinusMono-Regular.sfd')
# generous: a sanitizer build on a shared 2-core machine
WAIT = float(os.environ.get('ENS_JOIN_WAIT', '60'))


class Failure(Exception):
    pass


def wait_for(desc, cond, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while True:
        if cond():
            return
        if time.monotonic() > deadline:
            raise Failure(f"timed out waiting for: {desc}")
        time.sleep(0.05)


def read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return ''


class World:
    """A temporary directory and every process started in it."""

    def __init__(self, binary, name):
        self.bin = binary
        self.dir = tempfile.mkdtemp(prefix=f'{name}.', dir=os.environ.get('TMPDIR', '/tmp'))
        self.procs = []

    def path(self, *parts):
        p = os.path.join(self.dir, *parts)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def spawn(self, args, name, **kw):
        out = open(os.path.join(self.dir, name + '.out'), 'w')
        err = open(os.path.join(self.dir, name + '.err'), 'w')
        p = subprocess.Popen(args, stdout=out, stderr=err, **kw)
        p.out, p.err = out.name, err.name
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        if os.environ.get('ENS_KEEP_TMP'):
            print(f"kept {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def serve(self, path, name='serve', extra=()):
        p = self.spawn([self.bin, 'serve', '--bind', 'tcp://127.0.0.1:*', *extra, path], name)
        wait_for(f"serve {path} prints its endpoint", lambda: ' on tcp' in read(p.out) or p.poll() is not None)
        m = re.search(r' on (tcp://\S+) ', read(p.out))
        if not m:
            raise Failure(f"serve did not start: {read(p.err)}")
        p.endpoint = m.group(1)
        return p

    def join(self, name, path, endpoint, extra=(), wait=True):
        p = self.spawn([self.bin, 'join', '--name', name, '--file', path, *extra, endpoint], name)
        p.name = name
        if wait:
            # live: it wrote the file, or found it as it left it
            wait_for(f"join {name} takes up {path}",
                     lambda: re.search(r'^(wrote|mirroring) ', read(p.out), re.M) or p.poll() is not None)
            if p.poll() is not None:
                raise Failure(f"join {name} exited with {p.returncode}: {read(p.err)}")
        return p

    def watch_hash(self, endpoint):
        """The server's seq and document hash, through a watcher."""
        out = subprocess.run([self.bin, 'watch', '--seconds', '2', endpoint], capture_output=True, text=True,
                             timeout=WAIT)
        m = re.findall(r'^seq (\d+) hash ([0-9a-f]+)', out.stdout, re.M)
        return m[-1] if m else None


def stop(p, timeout=WAIT):
    """SIGTERM and wait; the exit status."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise Failure(f"{p.args[1]} did not stop within {timeout} s")


class Editor:
    """A simulated editor (editor.py) in a process of its own."""

    def __init__(self, world, kind, path, name):
        self.name = name
        self.log = open(os.path.join(world.dir, name + '.editor.err'), 'w')
        self.p = subprocess.Popen([PY, os.path.join(HERE, 'editor.py'), kind, path], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        world.procs.append(self.p)
        self.answer()

    def answer(self):
        deadline = time.monotonic() + WAIT
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise Failure(f"editor {self.name} did not answer")
            line = self.p.stdout.readline()
            if not line:
                raise Failure(f"editor {self.name} exited")
            if line.startswith('ok'):
                return line
            if line.startswith('error'):
                raise Failure(f"editor {self.name}: {line.strip()}")

    def do(self, command):
        self.p.stdin.write(command + '\n')
        self.p.stdin.flush()
        return self.answer()

    def quit(self):
        try:
            self.do('quit')
        except Failure:
            pass
        self.p.wait(timeout=WAIT)


# --- the values the tests edit -------------------------------------------------------

def widths(text):
    """Glyph name -> advance width, from an SFD file's text."""
    out = {}
    for m in re.finditer(r'^StartChar: (\S+)\n(?:(?!StartChar:)[^\n]*\n)*?Width: (-?\d+)', text, re.M):
        out.setdefault(m.group(1), m.group(2))
    return out


def attrs(text, name):
    """Element id -> the value of attribute name, from an SVG file's text."""
    out = {}
    for m in re.finditer(r'<\w+\b[^>]*>', text):
        tag = m.group(0)
        i = re.search(r'\sid="([^"]*)"', tag)
        v = re.search(r'\s' + re.escape(name) + r'="([^"]*)"', tag)
        if i and v:
            out[i.group(1)] = v.group(1)
    return out


def drawing(path, rects=60):
    """A drawing with rectangles r0.. in groups, and elements without ids."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<svg xmlns="http://www.w3.org/2000/svg" id="svg" viewBox="0 0 800 800">']
    for g in range(0, rects, 20):
        lines.append(f'  <g id="g{g // 20}" stroke="#000000">')
        for i in range(g, min(g + 20, rects)):
            lines.append(f'    <rect id="r{i}" x="{(i % 20) * 40}" y="{(i // 20) * 40}" width="30" height="30" '
                         f'fill="#000000"/>')
        lines.append('  </g>')
    lines.append('  <g>')
    for i in range(10):
        lines.append(f'    <circle cx="{i * 50 + 25}" cy="700" r="20"/>')
    lines.append('  </g>')
    lines.append('</svg>')
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


def animation(path, layers=8, precomp=False):
    """A Lottie animation with shape layers L1.. (ind 1..), each a circle
    whose position has keyframes at t = 0, 30 and 60, one line each, the way
    an exporter writes them. precomp: also an asset "arm" holding a layer
    "Arm" (ind 1) whose rotation has keyframes {"t": 0, "s": [5]} and
    {"t": 60, "s": [95]}."""
    lines = ['{"v": "5.7.4", "fr": 30, "ip": 0, "op": 60, "w": 512, "h": 512, "nm": "mirror test",']
    if precomp:
        lines += [' "assets": [{"id": "arm", "layers": [',
                  '  {"ddd": 0, "ind": 1, "ty": 4, "nm": "Arm", "ip": 0, "op": 60, "st": 0,',
                  '   "ks": {"r": {"a": 1, "k": [',
                  '      {"t": 0, "s": [5], "i": {"x": [0.5], "y": [1]}, "o": {"x": [0.5], "y": [0]}},',
                  '      {"t": 60, "s": [95]}]}},',
                  '   "shapes": [{"ty": "rc", "nm": "Bar", "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [8, 40]},'
                  ' "r": {"a": 0, "k": 0}}]}',
                  ' ]}],']
    lines += [' "layers": [']
    for n in range(1, layers + 1):
        kfs = []
        for t in (0, 30, 60):
            kf = f'{{"t": {t}, "s": [{n * 40 + t}, {n * 50}, 0]'
            kf += ', "i": {"x": [0.5], "y": [1]}, "o": {"x": [0.5], "y": [0]}}' if t < 60 else '}'
            kfs.append('      ' + kf)
        lines += [f'  {{"ddd": 0, "ind": {n}, "ty": 4, "nm": "L{n}", "ip": 0, "op": 60, "st": 0,',
                  '   "ks": {"o": {"a": 0, "k": 100}, "r": {"a": 0, "k": 0}, "s": {"a": 0, "k": [100, 100, 100]},',
                  '    "a": {"a": 0, "k": [0, 0, 0]},',
                  '    "p": {"a": 1, "k": [',
                  ',\n'.join(kfs),
                  '    ]}},',
                  '   "shapes": [{"ty": "el", "nm": "Circle", "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [40, 40]}},',
                  f'    {{"ty": "fl", "nm": "Fill", "c": {{"a": 0, "k": [{n / 10:.1f}, 0.2, 0.6, 1]}}, "o": {{"a": 0, "k": 100}}}}]',
                  '  }' + (',' if n < layers else '')]
    lines += [' ]', '}']
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


def keyframes(path):
    """(layer ind, t) -> the keyframe's "s" as a tuple, read with Python's
    json (a .tgs through gzip); {} when the file does not read."""
    import gzip
    import json
    try:
        with open(path, 'rb') as f:
            data = f.read()
        if data[:2] == b'\x1f\x8b':
            data = gzip.decompress(data)
        d = json.loads(data)
    except (OSError, ValueError):
        return {}
    out = {}
    for layer in d.get('layers', []):
        p = layer.get('ks', {}).get('p', {})
        if p.get('a') == 1:
            for kf in p['k']:
                out[(layer.get('ind'), kf['t'])] = tuple(kf['s'])
    return out


def set_keyframe(text, ind, t, value):
    """text with the "s" of layer ind's keyframe at t replaced by value (a
    list), the rest of the text as it was."""
    at = text.find(f'"ind": {ind},')
    if at < 0:
        raise KeyError(f"no layer with ind {ind}")
    m = re.compile(r'\{"t": ' + str(t) + r', "s": \[[^\]]*\]').search(text, at)
    if not m:
        raise KeyError(f"no keyframe at t={t} in layer {ind}")
    new = f'{{"t": {t}, "s": [' + ', '.join(str(v) for v in value) + ']'
    return text[:m.start()] + new + text[m.end():]


def have_fontforge():
    return subprocess.run([PY, '-c', 'import fontforge'], capture_output=True).returncode == 0


def sanitizer_reports(world):
    bad = []
    for name in os.listdir(world.dir):
        if name.endswith('.err'):
            t = read(os.path.join(world.dir, name))
            if 'Sanitizer' in t or 'runtime error:' in t:
                bad.append(name)
    return bad


def main(run):
    """Runs run(binary) -> list of failures; prints them; exit status."""
    binary = os.path.abspath(sys.argv[1])
    try:
        failures = run(binary)
    except Failure as e:
        failures = [str(e)]
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    print('ok' if not failures else f"{len(failures)} failed")
    return 1 if failures else 0
