#!/usr/bin/env python3
"""Writes the PNG fixtures of tests/unit/test_image.c with pypng, an encoder
independent of libpng (pip install pypng; made with pypng 0.20220715.0).

Pixel values follow the formulas below; test_image.c recomputes them on its
own, so a reader bug cannot hide behind the fixture. Run from this directory:
    python3 make_fixtures.py
"""
import struct
import zlib

import png


def v8(r, c, ch):
    return (r * 37 + c * 11 + ch * 71 + 5) % 256


def v16(r, c, ch):
    return (r * 7919 + c * 263 + ch * 20011 + 3) % 65536


def vbits(r, c, bits):
    return (r * 5 + c * 3) % (1 << bits)


def rows(w, h, ch, f):
    return [[f(r, c, k) for c in range(w) for k in range(ch)] for r in range(h)]


def write(name, w, h, data, **kw):
    with open(name, "wb") as fp:
        png.Writer(w, h, **kw).write(fp, data)


# grey, grey+alpha, RGB, RGBA at 8 and 16 bits
for ch, greyscale, alpha, tag in [(1, True, False, "grey"), (2, True, True, "ga"),
                                  (3, False, False, "rgb"), (4, False, True, "rgba")]:
    write(f"{tag}8.png", 7, 5, rows(7, 5, ch, v8), greyscale=greyscale, alpha=alpha, bitdepth=8)
    write(f"{tag}16.png", 6, 4, rows(6, 4, ch, v16), greyscale=greyscale, alpha=alpha,
          bitdepth=16)

# low bit depth grey: the reader scales to 0..255
for bits in (1, 2, 4):
    write(f"grey{bits}bit.png", 11, 3, rows(11, 3, 1, lambda r, c, k: vbits(r, c, bits)),
          greyscale=True, bitdepth=bits)

# interlaced (Adam7) RGB
write("rgb8_interlaced.png", 9, 9, rows(9, 9, 3, v8), greyscale=False, interlace=True)

# palette, index (r + 2c) % 6, without and with transparency (tRNS)
pal = [((i * 40) % 256, (i * 90) % 256, 255 - i * 30) for i in range(6)]
idx = [[(r + 2 * c) % 6 for c in range(5)] for r in range(4)]
write("palette.png", 5, 4, idx, palette=pal, bitdepth=8)
pal_a = [p + ((i * 50) % 256,) for i, p in enumerate(pal)]
write("palette_trns.png", 5, 4, idx, palette=pal_a, bitdepth=8)

# grey with a transparent grey level (tRNS): the reader adds alpha
write("grey8_trns.png", 7, 5, rows(7, 5, 1, v8), greyscale=True, transparent=v8(1, 1, 0))


# a valid-looking header claiming 100000x100000 8-bit grey pixels (10 GB)
# in a file of a few dozen bytes: the reader must refuse before allocating
def chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


with open("huge_claim.png", "wb") as fp:
    fp.write(b"\x89PNG\r\n\x1a\n")
    fp.write(chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0)))
    fp.write(chunk(b"IDAT", zlib.compress(b"\0" * 64)))
    fp.write(chunk(b"IEND", b""))
