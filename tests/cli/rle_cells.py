# Helpers for the Golly tests: RLE to a set of live cells on Golly's plane.
# Usage: python3 rle_cells.py same A.rle B.rle [shape]   exit 0 when A and B
# hold the same cells ("shape": the same up to a translation, for bgolly's
# output, which has no position); python3 rle_cells.py show A.rle prints
# "population x0,y0" (the top-left live cell's box corner on the plane).
import re
import sys


def cells(path):
    text = open(path).read()
    pos = re.search(r'#CXRLE.*Pos=(-?\d+),(-?\d+)', text)
    x0, y0 = (int(pos.group(1)), int(pos.group(2))) if pos else (0, 0)
    body = ''.join(l for l in text.split('\n') if l and not l.startswith('#') and not l.lstrip().startswith('x'))
    out, x, y, n = set(), 0, 0, ''
    for ch in body:
        if ch.isdigit():
            n += ch
            continue
        k = int(n) if n else 1
        n = ''
        if ch in 'b.':
            x += k
        elif ch in 'oA':
            out.update((x0 + x + i, y0 + y) for i in range(k))
            x += k
        elif ch == '$':
            y, x = y + k, 0
        elif ch == '!':
            break
    return out


def shape(c):
    if not c:
        return frozenset()
    mx, my = min(x for x, _ in c), min(y for _, y in c)
    return frozenset((x - mx, y - my) for x, y in c)


if __name__ != '__main__':
    pass
elif sys.argv[1] == 'same':
    a, b = cells(sys.argv[2]), cells(sys.argv[3])
    if len(sys.argv) > 4:
        a, b = shape(a), shape(b)
    sys.exit(0 if a == b and a else 1)
else:
    c = cells(sys.argv[2])
    print(len(c), '%d,%d' % (min(x for x, _ in c), min(y for _, y in c)) if c else '-')
