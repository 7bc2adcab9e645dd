# A simulated editor that keeps its document open, as FontForge and
# Inkscape do: it loads the file once and never reads it again unless told
# to (an editor that reloads, or a user's Revert), edits its copy in
# memory and saves it whole over the same file.
#   /usr/bin/python3 editor.py font PATH    FontForge (import fontforge): open once, edit glyphs, font.save(PATH)
#   /usr/bin/python3 editor.py svg PATH     a text buffer of the drawing, saved in place or by rename
#   /usr/bin/python3 editor.py anim PATH    a text buffer of a Lottie animation (.json), the same way
# Commands on stdin, one per line; each is answered by one line on stdout
# ("ok ..." or "error ..."):
#   width GLYPH N              (font) set a glyph's advance width
#   attr ID NAME VALUE         (svg) set an attribute of the element with that id
#   kf IND T X Y Z             (anim) set the position of layer IND's keyframe at time T
#   save [inplace|rename]      save the whole document over PATH
#   reload                     read PATH again (what an editor that reloads does before editing)
#   quit
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session import set_keyframe  # noqa: E402

kind, path = sys.argv[1], sys.argv[2]
font = None
text = None


def load():
    global font, text
    if kind == 'font':
        import fontforge
        if font is not None:
            font.close()
        font = fontforge.open(path)
    else:
        with open(path, encoding='utf-8') as f:
            text = f.read()


def set_attr(eid, name, value):
    global text
    m = re.search(r'<\w+\b[^>]*\bid="' + re.escape(eid) + r'"[^>]*>', text)
    if not m:
        raise KeyError(f"no element with id {eid}")
    tag = m.group(0)
    new, n = re.subn(r'(\s' + re.escape(name) + r'=")[^"]*(")', lambda a: a.group(1) + value + a.group(2), tag)
    if n == 0:
        new = tag.replace(f'id="{eid}"', f'id="{eid}" {name}="{value}"', 1)
    text = text[:m.start()] + new + text[m.end():]


def save(mode):
    if kind == 'font':
        font.save(path)
        return
    if mode == 'rename':
        tmp = path + '.editor-save'
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(tmp, path)
    else:
        with open(path, 'r+', encoding='utf-8') as f:
            f.seek(0)
            f.truncate()
            f.write(text)


load()
print('ok loaded', flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    try:
        if words[0] == 'width':
            font[words[1]].width = int(words[2])
        elif words[0] == 'kf':
            text = set_keyframe(text, int(words[1]), int(words[2]), [int(v) for v in words[3:]])
        elif words[0] == 'attr':
            set_attr(words[1], words[2], words[3])
        elif words[0] == 'save':
            save(words[1] if len(words) > 1 else 'inplace')
        elif words[0] == 'reload':
            load()
        elif words[0] == 'quit':
            print('ok', flush=True)
            break
        else:
            raise ValueError(f"unknown command {words[0]}")
        print('ok', flush=True)
    except Exception as e:  # the driver reports it; the editor keeps going
        print(f"error {e}".replace('\n', ' '), flush=True)
