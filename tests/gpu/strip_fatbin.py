#!/usr/bin/python3
"""strip_fatbin.py IN OUT [ARCH]: a copy of a CUDA shared library whose
fat binary (.nv_fatbin) keeps only the PTX for compute_ARCH (default 90,
the H100/H200), every other entry's payload zeroed, so that the library
compresses to a fraction of its size (node-llama-cpp 3.22.1's
libggml-cuda.so: 159 MB, 124 MB with xz; stripped, 21 MB with xz).  The
entries' headers stay, so the driver still finds the kept one and JIT
compiles it; kernels a GPU of another architecture would need are gone.

The fat binary layout (NVIDIA's fatbinary container, as cuobjdump reads
it): a header (magic 0xBA55ED50, u16 version, u16 header size, u64 size
of what follows), then entries, each a header (u16 kind: 1 PTX, 2 ELF;
u16 version; u32 header size; u64 padded payload size; ...; u32 SM
architecture at byte 28) and its payload."""
import re
import struct
import subprocess
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX = 1


def main():
    src, dst = sys.argv[1], sys.argv[2]
    arch = int(sys.argv[3]) if len(sys.argv) > 3 else 90
    data = bytearray(open(src, "rb").read())
    sections = subprocess.check_output(["readelf", "-SW", src]).decode()
    m = re.search(r"\.nv_fatbin\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", sections)
    if not m:
        sys.exit("strip_fatbin: %s has no .nv_fatbin section" % src)
    pos, end = int(m.group(1), 16), int(m.group(1), 16) + int(m.group(2), 16)
    kept = zeroed = 0
    while pos < end:
        magic, _version, header_size, size = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # fat binaries are 8-aligned in the section
            continue
        entry, stop = pos + header_size, pos + header_size + size
        while entry < stop:
            kind, _v, entry_header, payload = struct.unpack_from("<HHIQ", data, entry)
            sm = struct.unpack_from("<I", data, entry + 28)[0]
            body = entry + entry_header
            if kind == KIND_PTX and sm == arch:
                kept += payload
            else:
                data[body:body + payload] = bytes(payload)
                zeroed += payload
            entry = body + payload
        pos = stop
    if not kept:
        sys.exit("strip_fatbin: no PTX for compute_%d in %s" % (arch, src))
    open(dst, "wb").write(data)
    print("strip_fatbin: kept %d bytes of compute_%d PTX, zeroed %d" % (kept, arch, zeroed))


main()
