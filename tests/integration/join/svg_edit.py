# A drawing editor's save, in a process of its own: sets (or adds) one
# attribute of the element with a given id by editing the file's text, and
# writes the file either in place (truncate and rewrite the same inode) or
# by rename (a new file beside it, renamed over it), as editors do.
# usage: /usr/bin/python3 svg_edit.py FILE.svg inplace|rename ID ATTR VALUE
#        /usr/bin/python3 svg_edit.py FILE.svg delete ID      (the element, in place)
#        /usr/bin/python3 svg_edit.py FILE.svg break          (a half-written save, in place)
import os
import re
import sys

path, mode = sys.argv[1], sys.argv[2]
with open(path, encoding='utf-8') as f:
    text = f.read()

if mode == 'break':
    text = text[:len(text) // 2]
elif mode == 'delete':
    eid = sys.argv[3]
    text, n = re.subn(r'<(\w+)\b[^>]*\bid="' + re.escape(eid) + r'"[^>]*/>', '', text, count=1)
    if n != 1:
        sys.exit(f"{path}: no empty element with id {eid}")
else:
    eid, attr, value = sys.argv[3], sys.argv[4], sys.argv[5]
    m = re.search(r'<\w+\b[^>]*\bid="' + re.escape(eid) + r'"[^>]*>', text)
    if not m:
        sys.exit(f"{path}: no element with id {eid}")
    tag = m.group(0)
    new, n = re.subn(r'(\s' + re.escape(attr) + r'=")[^"]*(")', lambda a: a.group(1) + value + a.group(2), tag)
    if n == 0:
        new = tag.replace(f'id="{eid}"', f'id="{eid}" {attr}="{value}"', 1)
    text = text[:m.start()] + new + text[m.end():]

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
