#!/usr/bin/env python3
"""Writes an extended-set weights file from a `mobility` one, the extra patterns zero.

    python3 docs/scripts/extend_zero.py weights/annex.eval OUT.eval

The shared groups carry the given weights and the three extra patterns' weights are zero, so
the file evaluates every position as the given one does (the same search, node for node) at
the extended set's cost per evaluation: a measure of that cost alone.
"""
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
b = open(src, 'rb').read()
assert b[:8] == b'ANNEXEVW'
ver, fs, stages, g = struct.unpack_from('<HHHH', b, 8)
assert fs == 2, fs
sizes = list(struct.unpack_from('<%dI' % g, b, 16))
off = 16 + 4 * g
n, = struct.unpack_from('<I', b, off)
data = struct.unpack_from('<%dh' % n, b, off + 4)
per = sum(sizes)
assert per * stages == n
# Canonical sizes of the extra patterns (the engine refuses the file if they are wrong): the
# triangle and the cross are symmetric about the diagonal (6 and 7 square orbits), the corner
# block about the edge's middle (5): (3^10 + 3^orbits) / 2.
extra = [(59049 + 3**k) // 2 for k in (6, 5, 7)]
out = bytearray(b'ANNEXEVW') + struct.pack('<HHHH', ver, 3, stages, g + len(extra))
out += struct.pack('<%dI' % (g + len(extra)), *(sizes + extra))
newper = per + sum(extra)
out += struct.pack('<I', newper * stages)
for s in range(stages):
    out += struct.pack('<%dh' % per, *data[s * per:(s + 1) * per])
    out += b'\0\0' * sum(extra)
h = 0x811c9dc5
for x in out:
    h = ((h ^ x) * 0x01000193) & 0xffffffff
out += struct.pack('<I', h)
open(dst, 'wb').write(out)
print(dst, len(out), 'bytes', stages, 'stages')
