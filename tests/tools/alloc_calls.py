#!/usr/bin/env python3
"""Every allocation of the library goes through tw_set_allocator's allocator:
rewrite the C library's malloc/calloc/realloc/free/strdup calls of src/ (not
in comments or strings) as tw_malloc/tw_calloc/tw_realloc/tw_free/tw_strdup,
adding #include "alloc.h" where needed. src/alloc.c alone calls the C
library. Idempotent.

  tests/tools/alloc_calls.py [SOURCE_DIR]          rewrite in place
  tests/tools/alloc_calls.py --check [SOURCE_DIR]  list the calls left; exit 1 if any
"""
import glob
import os
import re
import sys

TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                   r'|(?<![\w.>])(malloc|calloc|realloc|free|strdup)(?=\s*\()', re.S)


def rewrite(text):
    out = TOKEN.sub(lambda m: 'tw_' + m.group(1) if m.group(1) else m.group(0), text)
    if out != text and '#include "alloc.h"' not in out:
        m = re.search(r'^#include "', out, re.M) or list(re.finditer(r'^#include .*\n', out, re.M))[-1]
        i = m.start() if m.group(0).startswith('#include "') else m.end()
        out = out[:i] + '#include "alloc.h"\n' + out[i:]
    return out


def main(argv):
    check = '--check' in argv
    args = [a for a in argv if a != '--check']
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    src = os.path.join(root, 'src')
    left = 0
    for f in sorted(glob.glob(os.path.join(src, '*.[ch]')) + glob.glob(os.path.join(src, '*', '*.[ch]'))):
        if os.path.basename(f) in ('alloc.c', 'alloc.h'):
            continue
        with open(f) as fh:
            text = fh.read()
        out = rewrite(text)
        if out == text:
            continue
        if check:
            n = sum(1 for m in TOKEN.finditer(text) if m.group(1))
            print(f'{os.path.relpath(f, root)}: {n} call(s) of the C library allocator', file=sys.stderr)
            left += 1
        else:
            with open(f, 'w') as fh:
                fh.write(out)
    if check and left:
        print('run tests/tools/alloc_calls.py to route them through tw_set_allocator', file=sys.stderr)
        return 1
    if check:
        print('src/ allocates through alloc.h only')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
