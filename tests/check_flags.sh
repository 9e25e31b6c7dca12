#!/bin/bash
# Library messages never name a CLI flag (docs/ARCHITECTURE.md): fails when
# a string literal in src/ outside src/cli contains "--" followed by a
# letter. Adjacent literals are joined first ("use --" "tile" counts);
# comments and character constants are skipped. The CLI adds the flag when
# it reports a library error.
#
#   tests/check_flags.sh [SRC_DIR]      (default: src beside this script)
set -u
SRC=${1:-$(dirname "$0")/../src}
python3 - "$SRC" <<'PY'
import os, re, sys

src = sys.argv[1]
flag = re.compile(r'--[A-Za-z]')
argv_word = re.compile(r'--[A-Za-z][A-Za-z0-9-]*')
pri = re.compile(r'\b(?:PRI|SCN)[a-zA-Z0-9]+\b')
bad = 0

def literals(text):
    """Yields (line, joined literal) for each run of adjacent string literals."""
    i, n, line = 0, len(text), 1
    run, run_line = None, 0
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            line += text.count('\n', i, j)
            i = j
            continue
        if c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == '\\':
                    buf.append(text[j:j + 2])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            s = ''.join(buf)
            if run is None:
                run, run_line = s, line
            else:
                run += s
            line += text.count('\n', i, j)
            i = j + 1
            continue
        if c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        m = pri.match(text, i)
        if m and run is not None:  # "%" PRId64 "x": one message
            run += 'lld'
            i = m.end()
            continue
        if c == '\n':
            line += 1
        elif not c.isspace() and run is not None:
            yield run_line, run
            run = None
        i += 1
    if run is not None:
        yield run_line, run

for root, dirs, files in os.walk(src):
    dirs.sort()
    rel = os.path.relpath(root, src)
    if rel == 'cli' or rel.startswith('cli' + os.sep):
        continue
    for f in sorted(files):
        if not f.endswith(('.c', '.h', '.cc')):
            continue
        path = os.path.join(root, f)
        with open(path, encoding='utf-8', errors='replace') as fp:
            text = fp.read()
        # preprocessor lines (#include "...") are not messages
        text = re.sub(r'(?m)^[ \t]*#[^\n]*', lambda m: ' ' * len(m.group(0)), text)
        for ln, s in literals(text):
            # a literal that is one option word is an argument vector's
            # element (bench e2e runs tiledcl itself), not a message
            if argv_word.fullmatch(s):
                continue
            if flag.search(s):
                print(f'{os.path.relpath(path, os.path.dirname(src.rstrip("/")))}:{ln}: names a CLI flag: "{s}"')
                bad += 1
if bad:
    print(f'check_flags: {bad} library string(s) name a CLI flag; say what is wrong '
          'and let the CLI name the flag')
    sys.exit(1)
print('check_flags: no library string names a CLI flag')
PY
