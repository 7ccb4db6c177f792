#!/usr/bin/python3
"""Converts the 512x512 'aero' image of Debian's python3-pywt (aero.npz, Expat) to an 8-bit grey PNG.

Run once; its output, resources/samples/aero.png, is committed. Needs only numpy: the PNG is written by
hand (zlib + struct) so that no imaging library is required.

    /usr/bin/python3 tools/samples/convert_aero.py [SOURCE.npz] [OUT.png]
"""
import struct
import sys
import zlib

import numpy

source = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/python3/dist-packages/pywt/data/aero.npz"
target = sys.argv[2] if len(sys.argv) > 2 else "resources/samples/aero.png"

pixels = numpy.load(source)["data"]
if pixels.dtype != numpy.uint8 or pixels.ndim != 2:
    sys.exit(f"{source}: expected a 2-D uint8 array, found {pixels.dtype} {pixels.shape}")
height, width = pixels.shape


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


# Filter type 0 (none) on every row; colour type 0 = greyscale, 8 bits.
raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))
png = (b"\x89PNG\r\n\x1a\n"
       + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
       + chunk(b"tEXt", b"Source\x00PyWavelets aero.npz (Debian python3-pywt), Expat licence")
       + chunk(b"IDAT", zlib.compress(raw, 9))
       + chunk(b"IEND", b""))
with open(target, "wb") as out:
    out.write(png)
print(f"{target}: {width}x{height}, 8-bit grey")
