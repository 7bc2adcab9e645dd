#!/usr/bin/env python3
# Writes src/lib/formats/sfd/letters.c: the code points below U+10000 whose
# general category is a letter (Lu, Ll, Lt, Lm, Lo), as ranges. FontForge
# moves the composites bound to a glyph by "use my metrics" when the
# glyph's left side bearing changes only if the glyph is such a letter
# (its isalpha), so the glyph edits need the same test.
# usage: python3 scripts/gen_letters.py > src/lib/formats/sfd/letters.c
import unicodedata

ranges = []
for c in range(0x10000):
    if unicodedata.category(chr(c)).startswith('L'):
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])

print('/* The letters below U+10000 (general category L*, Unicode %s), as' % unicodedata.unidata_version)
print(' * ranges: FontForge\'s isalpha, which decides whether a left side bearing')
print(' * change moves the composites bound to a glyph. Written by')
print(' * scripts/gen_letters.py; do not edit. */')
print('#include <stddef.h>')
print('#include <stdint.h>')
print()
print('#include "glyph_int.h"')
print()
print('static const uint16_t s_letters[][2] = {')
line = ' '
for a, b in ranges:
    item = ' {0x%04X, 0x%04X},' % (a, b)
    if len(line) + len(item) > 118:
        print(line)
        line = ' '
    line += item
print(line)
print('};')
print()
print('int ens__glyph_is_letter(int64_t c) {')
print('  if (c < 0 || c >= 0x10000) return 0;')
print('  size_t lo = 0, hi = sizeof s_letters / sizeof s_letters[0];')
print('  while (lo < hi) {')
print('    size_t mid = lo + (hi - lo) / 2;')
print('    if (c < s_letters[mid][0]) hi = mid;')
print('    else if (c > s_letters[mid][1]) lo = mid + 1;')
print('    else return 1;')
print('  }')
print('  return 0;')
print('}')
