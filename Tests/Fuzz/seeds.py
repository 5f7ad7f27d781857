#!/usr/bin/env python3
"""Seed corpora for `make fuzz`: out/fuzz/<Target>/seeds (replaced each run) and an empty
out/fuzz/<Target>/corpus that libFuzzer grows and keeps between runs.

Seeds come from our own files (Samples/*.dng, the hostile regression corpus), hand-made opcode
lists and lossless-JPEG streams written here, and, when present, small files of ../shared/samples
(read in place, never copied into the repository).
"""
import os, struct, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "samples")
V13 = 0x01030000


def opcode(op_id, params, flags=0):
    return struct.pack(">IIII", op_id, V13, flags, len(params)) + params


def opcode_list(*ops):
    return struct.pack(">I", len(ops)) + b"".join(ops)


AREA = struct.pack(">IIIIIIII", 0, 0, 29, 37, 0, 1, 1, 1)   # top left bottom right plane planes rowpitch colpitch


def opcode_seeds():
    poly = opcode(8, AREA + struct.pack(">I", 2) + struct.pack(">ddd", 0.01, 0.9, 0.05))
    delta_row = opcode(10, AREA + struct.pack(">I", 29) + struct.pack(">29f", *[0.001 * i for i in range(29)]))
    scale_col = opcode(13, AREA + struct.pack(">I", 37) + struct.pack(">37f", *[1 + 0.01 * i for i in range(37)]))
    bad_const = opcode(4, struct.pack(">II", 0, 1))
    bad_list = opcode(5, struct.pack(">IIII", 1, 1, 0, 0) + struct.pack(">II", 3, 4) + struct.pack(">IIII", 10, 10, 12, 12))
    trim = opcode(6, struct.pack(">IIII", 1, 1, 28, 36))
    gain = opcode(9, AREA + struct.pack(">II", 3, 3) + struct.pack(">dddd", 0.5, 0.5, 0.0, 0.0) + struct.pack(">I", 1)
                  + struct.pack(">9f", *[1.0 + 0.05 * i for i in range(9)]))
    table = opcode(7, AREA + struct.pack(">I", 4) + struct.pack(">4H", 0, 100, 40000, 65535))
    vignette = opcode(3, struct.pack(">ddddd", 0.1, -0.05, 0.01, 0.0, 0.0) + struct.pack(">dd", 0.5, 0.5))
    warp = opcode(1, struct.pack(">I", 1) + struct.pack(">dddddd", 1.0, 0.01, 0.0, 0.0, 0.0, 0.0) + struct.pack(">dd", 0.5, 0.5))
    unknown = opcode(99, b"\x01\x02\x03", flags=1)
    return {
        "poly": opcode_list(poly), "delta_row": opcode_list(delta_row), "scale_col": opcode_list(scale_col),
        "bad_const": opcode_list(bad_const), "bad_list": opcode_list(bad_list), "trim": opcode_list(trim),
        "gain": opcode_list(gain), "table": opcode_list(table), "vignette": opcode_list(vignette),
        "warp": opcode_list(warp), "mixed": opcode_list(poly, gain, unknown, delta_row), "empty": opcode_list(),
    }


def lj92(width, height, comps, samples, precision=12):
    """A T.81 lossless JPEG (predictor 1, one Huffman table with 5-bit codes for SSSS 0…16)."""
    out = bytearray(b"\xff\xd8")
    counts = [0] * 16
    counts[4] = 17
    dht = bytes([0x00]) + bytes(counts) + bytes(range(17))
    out += b"\xff\xc4" + struct.pack(">H", 2 + len(dht)) + dht
    sof = struct.pack(">BHHB", precision, height, width, comps) + b"".join(bytes([i + 1, 0x11, 0]) for i in range(comps))
    out += b"\xff\xc3" + struct.pack(">H", 2 + len(sof)) + sof
    sos = bytes([comps]) + b"".join(bytes([i + 1, 0x00]) for i in range(comps)) + bytes([1, 0, 0])
    out += b"\xff\xda" + struct.pack(">H", 2 + len(sos)) + sos
    bits, nbits = 0, 0
    data = bytearray()

    def put(v, n):
        nonlocal bits, nbits
        for i in range(n - 1, -1, -1):
            bits = (bits << 1) | ((v >> i) & 1); nbits += 1
            if nbits == 8:
                data.append(bits)
                if bits == 0xFF:
                    data.append(0)
                bits, nbits = 0, 0

    for y in range(height):
        for x in range(width):
            for c in range(comps):
                v = samples[(y * width + x) * comps + c]
                if x == 0 and y == 0:
                    pred = 1 << (precision - 1)
                elif y == 0 or x > 0:
                    pred = samples[(y * width + x - 1) * comps + c]
                else:
                    pred = samples[((y - 1) * width) * comps + c]
                d = (v - pred) & 0xFFFF
                if d >= 0x8000:
                    d -= 0x10000
                ssss = abs(d).bit_length() if d != -32768 else 16
                put(ssss, 5)
                if 0 < ssss < 16:
                    put(d if d > 0 else d + (1 << ssss) - 1, ssss)
    if nbits:
        put((1 << (8 - nbits)) - 1, 8 - nbits)
    out += data + b"\xff\xd9"
    return bytes(out)


def write(d, name, b):
    with open(os.path.join(d, name), "wb") as f:
        f.write(b)


def main(outdir):
    targets = ["FuzzDNGMetadata", "FuzzOpcodeList", "FuzzLosslessJPEG", "FuzzContainers", "FuzzDecode", "FuzzColourFiles"]
    for t in targets:
        seeds = os.path.join(outdir, t, "seeds")
        os.makedirs(seeds, exist_ok=True)
        os.makedirs(os.path.join(outdir, t, "corpus"), exist_ok=True)
        for f in os.listdir(seeds):
            os.unlink(os.path.join(seeds, f))
    dngs = [os.path.join(ROOT, "Samples", f) for f in sorted(os.listdir(os.path.join(ROOT, "Samples"))) if f.endswith(".dng")]
    hostile = os.path.join(outdir, "hostile-corpus")
    subprocess.run([sys.executable, os.path.join(ROOT, "Tests", "Hostile", "hostile.py"), "corpus", hostile], check=True,
                   stdout=subprocess.DEVNULL)
    dngs += [os.path.join(hostile, f) for f in sorted(os.listdir(hostile)) if os.path.isfile(os.path.join(hostile, f))]
    # The crafted option files of the hostile corpus: DCPs and CGATS references (valid and damaged).
    options = os.path.join(hostile, "options")
    for f in sorted(os.listdir(options)) if os.path.isdir(options) else []:
        if f.startswith("dcp-") or f.startswith("cgats-"):
            write(os.path.join(outdir, "FuzzColourFiles", "seeds"), f, open(os.path.join(options, f), "rb").read())
    shared_dng = os.path.join(SHARED, "dng")
    if os.path.isdir(shared_dng):
        dngs += [os.path.join(shared_dng, f) for f in sorted(os.listdir(shared_dng))
                 if os.path.getsize(os.path.join(shared_dng, f)) <= 2_000_000]
    for i, p in enumerate(dngs):
        b = open(p, "rb").read()
        write(os.path.join(outdir, "FuzzDNGMetadata", "seeds"), "%03d-%s" % (i, os.path.basename(p)), b)
        write(os.path.join(outdir, "FuzzDecode", "seeds"), "%03d-%s" % (i, os.path.basename(p)), b)
    for name, b in opcode_seeds().items():
        write(os.path.join(outdir, "FuzzOpcodeList", "seeds"), name, b)
    for w, h, c in [(16, 16, 1), (8, 8, 3), (33, 7, 1)]:
        samples = [((x * 37 + y * 91 + k * 13) * 29) % 4096 for y in range(h) for x in range(w) for k in range(c)]
        header = bytes([w - 1, h - 1, 0 if c == 1 else 1])
        write(os.path.join(outdir, "FuzzLosslessJPEG", "seeds"), "lj92-%dx%dx%d" % (w, h, c), header + lj92(w, h, c, samples))
    heif = os.path.join(SHARED, "heif")
    if os.path.isdir(heif):
        for f in sorted(os.listdir(heif)):
            if f.endswith(".jpg"):
                write(os.path.join(outdir, "FuzzContainers", "seeds"), f, open(os.path.join(heif, f), "rb").read())
    # A minimal JPEG with an EXIF APP1 (little-endian TIFF, one IFD0 entry) and a SOF0.
    exif = b"Exif\0\0" + b"II*\0" + struct.pack("<IHHHII", 8, 1, 0x0112, 3, 1, 6) + struct.pack("<I", 0)
    jpeg = b"\xff\xd8" + b"\xff\xe1" + struct.pack(">H", 2 + len(exif)) + exif \
        + b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 16, 16, 1) + bytes([1, 0x11, 0]) + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00\xff\xd9"
    write(os.path.join(outdir, "FuzzContainers", "seeds"), "exif.jpg", jpeg)
    write(os.path.join(outdir, "FuzzContainers", "seeds"), "exif.tiff", exif[6:])
    print("seeds in %s" % outdir)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/fuzz")
