#!/usr/bin/env python3
"""Hostile-input harness for Darkroom (issue 20): a regression corpus made from our own samples,
and a mutation campaign. Runs the real `darkroom` binary and checks that every command on every
input ends with a clean exit (never a signal), within a time limit, within a memory limit, and
with a one-line error naming the file.

  hostile.py corpus OUTDIR                 write the regression corpus (from Samples/ and, when
                                           present, ../shared/samples)
  hostile.py run DARKROOM DIR [--jobs N]   run develop / info --json / explain / thumbnail / convert /
                                           verify / extract / compare on every file in DIR, then every
                                           option that takes a file (--profile, --matte, --recipe,
                                           --reference, --flash-profile, --flash-spectrum, --pairs) with
                                           the crafted files in DIR/options and the generic hostile kinds
                                           (empty, a 2 GiB sparse file, a FIFO, a directory, /dev/zero)
  hostile.py mutate DARKROOM N [--seed S] [--jobs N] [--keep DIR] [--options DIR]
                                           N fresh mutants of the samples, run like `run`, and N / 10
                                           mutants of the crafted option files (or of DIR's) through
                                           every option of their kind

Prints one line per problem, the runs per command, and closes with 'N passed, N failed'. Exit
status 1 on any failure. An option file of a generic hostile kind must be refused as a usage error
(exit 2); the 2 GiB sparse file within 1 s and 100 MB.
No third-party Python packages: the standard library only.
"""
import os, random, shutil, signal, struct, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "samples")
TIME_LIMIT = 30.0           # seconds per command
SMALL_INPUT = 1 << 20       # inputs up to 1 MB …
SMALL_PEAK_MB = 300         # … must stay under 300 MB peak RSS in every command (the process and,
                            # through wait4, its waited-for children: develop's workers)


# ---------------------------------------------------------------- TIFF patching helpers

class Tiff:
    """Minimal classic-TIFF walker: IFD entries with their file offsets, for patching."""

    def __init__(self, data):
        self.d = bytearray(data)
        self.le = self.d[:2] == b"II"
        self.e = "<" if self.le else ">"

    def u16(self, o): return struct.unpack_from(self.e + "H", self.d, o)[0]
    def u32(self, o): return struct.unpack_from(self.e + "I", self.d, o)[0]
    def put32(self, o, v): struct.pack_into(self.e + "I", self.d, o, v & 0xFFFFFFFF)
    def put16(self, o, v): struct.pack_into(self.e + "H", self.d, o, v & 0xFFFF)

    def ifds(self):
        """Offsets of IFD0 chain and SubIFDs (breadth first, loops cut)."""
        seen, todo, out = set(), [self.u32(4)], []
        while todo:
            o = todo.pop(0)
            if o in seen or o <= 0 or o + 2 > len(self.d):
                continue
            seen.add(o)
            out.append(o)
            n = self.u16(o)
            for i in range(n):
                e = o + 2 + 12 * i
                if e + 12 > len(self.d):
                    break
                if self.u16(e) == 330:  # SubIFDs
                    cnt, typ = self.u32(e + 4), self.u16(e + 2)
                    if cnt == 1:
                        todo.append(self.u32(e + 8))
                    else:
                        base = self.u32(e + 8)
                        for k in range(min(cnt, 64)):
                            if base + 4 * k + 4 <= len(self.d):
                                todo.append(self.u32(base + 4 * k))
            nxt = o + 2 + 12 * n
            if nxt + 4 <= len(self.d):
                todo.append(self.u32(nxt))
        return out

    def entries(self):
        for o in self.ifds():
            n = self.u16(o)
            for i in range(n):
                e = o + 2 + 12 * i
                if e + 12 <= len(self.d):
                    yield o, e, self.u16(e), self.u16(e + 2), self.u32(e + 4)

    def raw_ifd_entries(self, tag):
        """Entries of `tag` in IFDs whose NewSubFileType is 0 and that hold ImageWidth."""
        out = []
        for o, e, t, typ, cnt in self.entries():
            if t == tag:
                out.append((e, typ, cnt))
        return out

    def set_scalar(self, tag, value, only_largest=False):
        hits = self.raw_ifd_entries(tag)
        for e, typ, cnt in hits:
            if cnt != 1:
                continue
            if typ == 3 and value <= 0xFFFF:
                self.put16(e + 8, value)
            else:
                self.put16(e + 2, 4)   # as LONG, so the whole value is stored
                self.put32(e + 8, value)
        return len(hits)


def build_tiff(entries_ifd0, entries_raw, payload):
    """A little-endian DNG from tag lists [(tag, type, values)], raw IFD as SubIFD 0.
    `payload` bytes are appended and their offset substituted for values equal to 'PAYLOAD'."""
    TYPE_SIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 10: 8, 12: 8}
    out = bytearray(b"II*\0" + struct.pack("<I", 8))

    def layout(entries, base):
        n = len(entries)
        data_off = base + 2 + 12 * n + 4
        blob = bytearray()
        packed = []
        for tag, typ, vals in sorted(entries, key=lambda x: x[0]):
            if isinstance(vals, (bytes, bytearray)):
                raw = bytes(vals); cnt = len(raw)
            else:
                fmt = {1: "B", 3: "H", 4: "I", 7: "B"}[typ]
                raw = struct.pack("<%d%s" % (len(vals), fmt), *vals); cnt = len(vals)
            if len(raw) <= 4:
                packed.append((tag, typ, cnt, raw.ljust(4, b"\0"), None))
            else:
                packed.append((tag, typ, cnt, None, raw))
        return packed

    ifd0 = layout(entries_ifd0, 8)
    raw = layout(entries_raw, 0)
    # offsets: ifd0 at 8, then its external data, then raw ifd, its data, then payload
    def size(packed):
        return 2 + 12 * len(packed) + 4 + sum(len(x[4]) + (len(x[4]) & 1) for x in packed if x[4] is not None)
    ifd0_off = 8
    raw_off = ifd0_off + size(ifd0) + 12  # + SubIFDs entry
    payload_off = raw_off + size(raw)
    # SubIFDs entry points at the raw IFD
    ifd0 = sorted(ifd0 + [(330, 4, 1, struct.pack("<I", raw_off), None)], key=lambda x: x[0])

    def emit(packed, off):
        b = bytearray(struct.pack("<H", len(packed)))
        ext = off + 2 + 12 * len(packed) + 4
        extdata = bytearray()
        for tag, typ, cnt, inline, external in packed:
            if inline is not None:
                b += struct.pack("<HHI", tag, typ, cnt) + inline
            else:
                b += struct.pack("<HHII", tag, typ, cnt, ext + len(extdata))
                extdata += external + (b"\0" if len(external) & 1 else b"")
        b += struct.pack("<I", 0)
        return b + extdata

    out += emit(ifd0, ifd0_off)
    assert len(out) == raw_off, (len(out), raw_off)
    out += emit(raw, raw_off)
    out += payload
    return bytes(out), payload_off


# ---------------------------------------------------------------- corpus

def samples():
    files = sorted(os.path.join(ROOT, "Samples", f) for f in os.listdir(os.path.join(ROOT, "Samples")) if f.endswith(".dng"))
    shared = os.path.join(SHARED, "dng")
    if os.path.isdir(shared):
        files += sorted(os.path.join(shared, f) for f in os.listdir(shared))
    return files


def corpus(outdir):
    os.makedirs(outdir, exist_ok=True)
    base = os.path.join(ROOT, "Samples", "chart-rggb-12bit-D65.dng")
    data = open(base, "rb").read()
    written = []

    def put(name, b):
        p = os.path.join(outdir, name)
        with open(p, "wb") as f:
            f.write(b)
        written.append(p)

    # ImageWidth/ImageLength 0xFFFFFFFF (an Int product overflow in the raw-IFD search).
    t = Tiff(data); t.set_scalar(256, 0xFFFFFFFF); t.set_scalar(257, 0xFFFFFFFF); put("dims-ffffffff.dng", t.d)
    # 2000000000 x 2000000000 (passes a naive info, overflows a memory estimate).
    t = Tiff(data); t.set_scalar(256, 2000000000); t.set_scalar(257, 2000000000); put("dims-2e9.dng", t.d)
    # Width only, and height only, out of range.
    t = Tiff(data); t.set_scalar(256, 0x7FFFFFFF); put("width-7fffffff.dng", t.d)
    t = Tiff(data); t.set_scalar(257, 0); put("height-0.dng", t.d)
    # Truncations of a valid DNG at many points (headers, IFDs, pixel data).
    for cut in [0, 1, 7, 8, 64, 200, 1000, len(data) // 3, len(data) // 2, len(data) - 1]:
        put("truncated-%d.dng" % cut, data[:cut])
    # A lossy-JPEG DNG 108 KB in size that claims 16000x16000, every tile at the same bytes.
    tiles = (16000 + 255) // 256
    n = tiles * tiles
    tile = bytes(random.Random(7).getrandbits(8) for _ in range(96 * 1024))
    ifd0 = [(254, 4, [1]), (256, 4, [64]), (257, 4, [64]), (50706, 1, [1, 4, 0, 0]),
            (50708, 2, b"Hostile\0"), (271, 2, b"Darkroom\0"), (272, 2, b"Hostile\0")]
    raw = [(254, 4, [0]), (256, 4, [16000]), (257, 4, [16000]), (258, 3, [8, 8, 8]), (259, 3, [34892]),
           (262, 3, [34892]), (277, 3, [3]), (322, 4, [256]), (323, 4, [256]),
           (325, 4, [len(tile)] * n), (324, 4, [0] * n)]
    b, payload_off = build_tiff(ifd0, raw, tile)
    bt = Tiff(b)
    for e, typ, cnt in bt.raw_ifd_entries(324):
        off = bt.u32(e + 8)
        for k in range(cnt):
            bt.put32(off + 4 * k, payload_off)
    put("lossy-16000-shared-tiles.dng", bt.d)
    # An OpcodeList2 whose count claims 0xFFFFFFFF opcodes (LibRaw loops on it for hours).
    opl = struct.pack(">I", 0xFFFFFFFF) + bytes(16)
    skia = os.path.join(SHARED, "dng", "skia_sample_1mp.dng")
    if os.path.exists(skia):
        s = Tiff(open(skia, "rb").read())
        hits = [(e, typ, cnt) for e, typ, cnt in s.raw_ifd_entries(51009)]
        for e, typ, cnt in hits:
            off = s.u32(e + 8)
            s.put32(off, 0xFFFFFFFF)
        if hits:
            put("skia-opcodelist2-count-ffffffff.dng", s.d)
    # Not RAW at all, and empty.
    put("empty.dng", b"")
    put("text.dng", b"this is not a raw file\n" * 10)
    put("tiff-magic-only.dng", b"II*\0\x08\0\0\0")
    put("ifd-loop.dng", b"II*\0\x08\0\0\0" + struct.pack("<H", 0) + struct.pack("<I", 8))
    # Shared corrupt files (read in place: never copied into the repository).
    written += option_corpus(os.path.join(outdir, "options"))
    return written


def build_dcp(entries):
    """A little-endian DNG camera profile ("IIRC") with one IFD of [(tag, type, count, raw bytes)]."""
    out = bytearray(b"IIRC" + struct.pack("<I", 8))
    n = len(entries)
    ext = 8 + 2 + 12 * n + 4
    ifd = bytearray(struct.pack("<H", n))
    data = bytearray()
    for tag, typ, cnt, raw in sorted(entries, key=lambda e: e[0]):
        if len(raw) <= 4:
            ifd += struct.pack("<HHI", tag, typ, cnt) + raw.ljust(4, b"\0")
        else:
            ifd += struct.pack("<HHII", tag, typ, cnt, ext + len(data))
            data += raw + (b"\0" if len(raw) & 1 else b"")
    ifd += struct.pack("<I", 0)
    return bytes(out + ifd + data)


def dcp_entries(matrix=(0.7, -0.1, -0.05, -0.4, 1.2, 0.2, -0.05, 0.1, 0.6), table=None):
    def srational(v):
        return struct.pack("<ii", int(round(v * 10000)) if abs(v) < 2e5 else (0x7FFFFFFF if v > 0 else -0x7FFFFFFF),
                           10000 if abs(v) < 2e5 else 1)
    e = [(50708, 2, 8, b"Hostile\0"), (50778, 3, 1, struct.pack("<H", 21)), (50936, 2, 5, b"test\0"),
         (50721, 10, 9, b"".join(srational(v) for v in matrix))]
    if table is not None:
        dims, values = table
        e.append((50937, 4, 3, struct.pack("<3I", *dims)))
        e.append((50938, 11, len(values), struct.pack("<%df" % len(values), *values)))
    return e


def option_corpus(outdir):
    """Crafted files for every option that takes one, named KIND-what.EXT (KIND: dcp, png, cgats,
    spectrum, pairs, recipe): the kinds of damage the issue-41 campaign found."""
    os.makedirs(outdir, exist_ok=True)
    written = []

    def put(name, b):
        p = os.path.join(outdir, name)
        with open(p, "wb") as f:
            f.write(b if isinstance(b, (bytes, bytearray)) else b.encode())
        written.append(p)

    good = build_dcp(dcp_entries())
    put("dcp-valid.dcp", good)
    put("dcp-matrix-2e9.dcp", build_dcp(dcp_entries(matrix=(3e9, -0.1, -0.05, -0.4, 1.2, 0.2, -0.05, 0.1, 0.6))))
    put("dcp-matrix-zero.dcp", build_dcp(dcp_entries(matrix=(0,) * 9)))
    put("dcp-table-3e38.dcp", build_dcp(dcp_entries(table=((2, 2, 1), [0.0, 1.0, 3e38] * 4))))
    put("dcp-table-nan.dcp", build_dcp(dcp_entries(table=((2, 2, 1), [float("nan"), 1.0, 1.0] * 4))))
    put("dcp-table-dims-huge.dcp", build_dcp(dcp_entries(table=((1024, 1024, 1024), [1.0] * 3))))
    for cut in (4, 12, len(good) // 2, len(good) - 1):
        put("dcp-truncated-%d.dcp" % cut, good[:cut])
    put("dcp-tiff-magic.dcp", b"II*\0" + good[4:])
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = struct.pack(">IIBBBBB", 0x7FFFFFFF, 0x7FFFFFFF, 8, 0, 0, 0, 0)
    import zlib
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    put("png-huge-ihdr.png", sig + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))
    small = struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0)
    put("png-no-idat.png", sig + chunk(b"IHDR", small) + chunk(b"IEND", b""))
    put("png-bad-idat.png", sig + chunk(b"IHDR", small) + chunk(b"IDAT", b"\x78\x9c\xff\xff") + chunk(b"IEND", b""))
    put("png-signature-only.png", sig)
    header = "CTI3\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L LAB_A LAB_B\nEND_DATA_FORMAT\nNUMBER_OF_SETS 24\nBEGIN_DATA\n"
    put("cgats-lab-1e300.cie", header + "".join("%d %s 0 0\n" % (i + 1, "1e300" if i == 5 else "50") for i in range(24)) + "END_DATA\n")
    put("cgats-lab-nan.cie", header + "".join("%d nan 0 0\n" % (i + 1) for i in range(24)) + "END_DATA\n")
    put("cgats-short.cie", header + "1 50 0 0\nEND_DATA\n")
    spec = " ".join("SPEC_%d" % (380 + 10 * j) for j in range(36))
    put("cgats-spectral-1e308.ti3", "CTI3\nBEGIN_DATA_FORMAT\nSAMPLE_ID %s\nEND_DATA_FORMAT\nBEGIN_DATA\n" % spec
        + "".join("%d %s\n" % (i + 1, " ".join("1e308" if (i, j) == (3, 10) else "0.5" for j in range(36))) for i in range(24))
        + "END_DATA\n")
    put("cgats-binary.cie", bytes(range(256)) * 4)
    put("spectrum-1e308.csv", "".join("%d,%s\n" % (380 + 10 * j, "1e308") for j in range(41)))
    put("spectrum-zero.csv", "".join("%d,0\n" % (380 + 10 * j) for j in range(41)))
    put("spectrum-garbage.csv", "nm,power\nfoo,bar\n")
    put("pairs-missing.csv", "nope-a.dng,nope-b.dng\n")
    put("pairs-binary.csv", bytes(range(256)) * 4)
    put("recipe-deep.yaml", "a: " + "[" * 10000 + "]" * 10000 + "\n")
    put("recipe-laughs.yaml", "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n")
    put("recipe-binary.yaml", bytes(range(256)) * 4)
    return written


# ---------------------------------------------------------------- running

COMMANDS = [
    ("develop", lambda f, o: ["develop", f, "-o", o, "--log", "text", "--jobs", "1"]),
    ("info", lambda f, o: ["info", f, "--json"]),
    ("explain", lambda f, o: ["explain", f]),
    ("thumbnail", lambda f, o: ["thumbnail", f, "-o", o]),
    ("convert", lambda f, o: ["convert", f, "-o", o, "--preview", "none"]),
    ("verify", lambda f, o: ["verify", f]),
    ("extract", lambda f, o: ["extract", f, "-o", o]),
    ("compare", lambda f, o: ["compare", f, "-o", o, "--threads", "1"]),
]

# Inputs for the option-file runs: a chart, and a constant-colour pair.
BASE = os.path.join(ROOT, "Samples", "chart-rggb-12bit-D65.dng")
AMBIENT = os.path.join(ROOT, "Tests", "ConstantColourPairs", "mixed-ambient.dng")
FLASH = os.path.join(ROOT, "Tests", "ConstantColourPairs", "mixed-flash.dng")

# Every option that takes a file, by the kind of file it takes: (name, args(FILE, OUTDIR)).
OPTION_COMMANDS = {
    "dcp": [
        ("develop --profile", lambda x, o: ["develop", BASE, "-o", o, "--jobs", "1", "--profile", x]),
        ("explain --profile", lambda x, o: ["explain", BASE, "--profile", x]),
        ("compare --profile", lambda x, o: ["compare", BASE, "-o", o, "--threads", "1", "--profile", "embedded", "--profile", x]),
        ("constant-colour --flash-profile", lambda x, o: ["constant-colour", "--ambient", AMBIENT, "--flash", FLASH, "-o", o, "--flash-profile", x]),
    ],
    "png": [
        ("develop --matte", lambda x, o: ["develop", BASE, "-o", o, "--jobs", "1", "--matte", "skin=" + x]),
    ],
    "cgats": [
        ("compare --reference", lambda x, o: ["compare", BASE, "-o", o, "--threads", "1", "--reference", x]),
        ("profile fit --reference", lambda x, o: ["profile", "fit", BASE, "-o", os.path.join(o, "p.dcp"), "--threads", "1", "--reference", x]),
    ],
    "spectrum": [
        ("constant-colour --flash-spectrum", lambda x, o: ["constant-colour", "--ambient", AMBIENT, "--flash", FLASH, "-o", o, "--flash-spectrum", x]),
    ],
    "pairs": [
        ("constant-colour --pairs", lambda x, o: ["constant-colour", "--pairs", x, "-o", o, "--flash-xy", "0.31,0.33"]),
    ],
    "recipe": [
        ("develop --recipe", lambda x, o: ["develop", BASE, "-o", o, "--jobs", "1", "--recipe", x]),
        ("explain --recipe", lambda x, o: ["explain", BASE, "--recipe", x]),
        ("recipe --print --recipe", lambda x, o: ["recipe", "--print", "--recipe", x]),
        ("constant-colour --recipe", lambda x, o: ["constant-colour", "--ambient", AMBIENT, "--flash", FLASH, "-o", o, "--recipe", x]),
    ],
}
# Generic hostile kinds given to every option (made at run time): each must be a usage error.
SPARSE_LIMIT_SECONDS = 1.0
SPARSE_LIMIT_MB = 100

COUNTS = {}
COUNTS_LOCK = __import__("threading").Lock()


def count(name):
    with COUNTS_LOCK:
        COUNTS[name] = COUNTS.get(name, 0) + 1


def run_one(binary, args):
    """Runs `binary args` in its own session with stdin/stdout on /dev/null; returns (problem or
    None, stderr text, peak RSS in MB from wait4's rusage). A run past TIME_LIMIT is killed."""
    prob, text, peak, _, _ = run_timed(binary, args)
    return prob, text, peak


def run_timed(binary, args):
    """`run_one`, also returning the exit status (None after a signal or a hang) and the seconds taken."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        pid = os.posix_spawn(binary, [binary] + args, os.environ, setsid=True, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, out.fileno(), 1),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        deadline = time.monotonic() + TIME_LIMIT
        while True:
            wpid, status, usage = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                break
            if time.monotonic() > deadline:
                os.killpg(pid, signal.SIGKILL)
                os.wait4(pid, 0)
                return "HANG (> %.0f s)" % TIME_LIMIT, "", None, None, time.monotonic() - t0
            time.sleep(0.005)
        err.seek(0)
        text = err.read().decode("utf-8", "replace").strip()
        # `verify` reports a bad file on stdout ("FAIL FILE: reason"): that is its error line.
        out.seek(0)
        fails = [l for l in out.read(1 << 20).decode("utf-8", "replace").splitlines() if l.startswith("FAIL")]
    seconds = time.monotonic() - t0
    peak = usage.ru_maxrss / 1024.0
    if os.WIFSIGNALED(status):
        return "CRASH signal %s" % signal.Signals(os.WTERMSIG(status)).name, text, peak, None, seconds
    rc = os.WEXITSTATUS(status)
    # A batch worker process that died on a fault signal is a crash too, though the run survives it.
    for l in text.splitlines():
        if "worker process killed by SIG" in l and "SIGKILL" not in l:
            return "CRASH in a worker: %s" % l.strip()[:200], text, peak, rc, seconds
    if rc >= 128 and rc != 130:
        return "exit %d (signal-like)" % rc, text, peak, rc, seconds
    if rc != 0 and not fails and not any("error" in l.lower() for l in text.splitlines() if l.strip()):
        return "exit %d without an error line: %r" % (rc, text[:200]), text, peak, rc, seconds
    return None, text, peak, rc, seconds


def check_file(binary, path, workdir):
    problems = []
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    for name, args in COMMANDS:
        out = tempfile.mkdtemp(dir=workdir)
        count(name)
        prob, _, peak = run_one(binary, args(path, out))
        if prob:
            problems.append("%s %s: %s" % (name, path, prob))
        elif peak is not None and size <= SMALL_INPUT and peak > SMALL_PEAK_MB:
            problems.append("%s %s: peak %.0f MB for a %d-byte input" % (name, path, peak, size))
        # Leftover temporary files mean a partial output.
        for dirpath, _, names in os.walk(out):
            for n in names:
                if n.startswith(".") and ("tmp" in n or n.endswith(".partial")) and not n.startswith(".darkroom-manifest"):
                    problems.append("%s %s: left temporary file %s" % (name, path, n))
        shutil.rmtree(out, ignore_errors=True)
    return problems


def run_all(binary, files, jobs):
    workdir = tempfile.mkdtemp(prefix="darkroom-hostile-")
    try:
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            passed, failed = tally(ex.map(lambda path: check_file(binary, path, workdir), files))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return passed, failed


def option_jobs(option_dir, workdir):
    """(command name, args builder, option file, generic kind or None) for every option run: the
    crafted files of DIR/options by kind (their name's prefix), then the generic hostile kinds."""
    jobs = []
    if option_dir and os.path.isdir(option_dir):
        for f in sorted(os.listdir(option_dir)):
            kind = f.split("-", 1)[0]
            for name, args in OPTION_COMMANDS.get(kind, []):
                jobs.append((name, args, os.path.join(option_dir, f), None))
    generic = os.path.join(workdir, "generic")
    os.makedirs(generic, exist_ok=True)
    empty = os.path.join(generic, "empty")
    open(empty, "wb").close()
    sparse = os.path.join(generic, "sparse-2g")
    with open(sparse, "wb") as f:
        f.truncate(2 << 30)
    fifo = os.path.join(generic, "fifo")
    os.mkfifo(fifo)
    folder = os.path.join(generic, "folder")
    os.makedirs(folder, exist_ok=True)
    for kind, path in [("empty", empty), ("sparse-2g", sparse), ("fifo", fifo), ("directory", folder), ("dev-zero", "/dev/zero")]:
        for cmds in OPTION_COMMANDS.values():
            for name, args in cmds:
                jobs.append((name, args, path, kind))
    return jobs


def check_option(binary, job, workdir):
    name, args, path, kind = job
    out = tempfile.mkdtemp(dir=workdir)
    count(name)
    label = "%s %s" % (name, path)
    problems = []
    prob, text, peak, rc, seconds = run_timed(binary, args(path, out))
    if prob:
        problems.append("%s: %s" % (label, prob))
    elif peak is not None and peak > SMALL_PEAK_MB:
        problems.append("%s: peak %.0f MB" % (label, peak))
    elif kind not in (None, "empty"):
        # Refused by kind or size, as a usage error, before the file is read.
        if rc != 2:
            problems.append("%s: exit %s, expected 2 (usage) for a %s: %r" % (label, rc, kind, text[:200]))
        if kind == "sparse-2g" and (seconds > SPARSE_LIMIT_SECONDS or (peak or 0) > SPARSE_LIMIT_MB):
            problems.append("%s: 2 GiB sparse file took %.2f s and %.0f MB (limits %.0f s, %d MB)"
                            % (label, seconds, peak or 0, SPARSE_LIMIT_SECONDS, SPARSE_LIMIT_MB))
    shutil.rmtree(out, ignore_errors=True)
    return problems


def run_options(binary, option_dir, jobs):
    workdir = tempfile.mkdtemp(prefix="darkroom-hostile-options-")
    try:
        todo = option_jobs(option_dir, workdir)
        # The FIFO would block a reader that opens it blocking: every job runs under the time limit.
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            passed, failed = tally(ex.map(lambda j: check_option(binary, j, workdir), todo))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return passed, failed


def tally(results):
    """(passed, failed) over a run's problem lists, printing every problem as it comes."""
    passed = failed = 0
    for probs in results:
        if probs:
            failed += 1
            for p in probs:
                print(p, flush=True)
        else:
            passed += 1
    return passed, failed


def mutate_bytes(rng, data):
    d = bytearray(data)
    kind = rng.randrange(6)
    if kind == 0 and d:                       # flip bytes
        for _ in range(rng.randrange(1, 32)):
            d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
    elif kind == 1 and d:                     # truncate
        d = d[:rng.randrange(len(d))]
    elif kind == 2 and len(d) > 16:           # smash a TIFF entry's count or value
        try:
            t = Tiff(d)
            ents = list(t.entries())
            if ents:
                _, e, tag, typ, cnt = rng.choice(ents)
                which = rng.choice([4, 8])
                t.put32(e + which, rng.choice([0, 1, 2, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000,
                                               rng.randrange(1 << 32), len(d), len(d) - 1]))
                d = t.d
        except Exception:
            pass
    elif kind == 3 and len(d) > 16:           # overwrite a random window with 0xFF / 0x00
        o = rng.randrange(len(d)); n = rng.randrange(1, 64)
        d[o:o + n] = bytes([rng.choice([0, 0xFF])]) * min(n, len(d) - o)
    elif kind == 4 and len(d) > 64:           # duplicate a chunk elsewhere
        a = rng.randrange(len(d)); n = rng.randrange(1, min(4096, len(d) - a) + 1)
        b = rng.randrange(len(d))
        d[b:b] = d[a:a + n]
    else:                                     # set a 16/32-bit word to an extreme
        if len(d) > 8:
            o = rng.randrange(len(d) - 4)
            d[o:o + 4] = rng.choice([b"\xff\xff\xff\xff", b"\0\0\0\0", b"\x7f\xff\xff\xff", b"\0\0\x80\0"])
    return bytes(d)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__); return 2
    jobs = 2
    if "--jobs" in argv:
        jobs = int(argv[argv.index("--jobs") + 1])
    if argv[1] == "corpus":
        files = corpus(argv[2])
        print("wrote %d files to %s" % (len(files), argv[2]))
        return 0
    binary = os.path.abspath(argv[2])
    if argv[1] == "run":
        d = argv[3]
        files = sorted(os.path.join(d, f) for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))
        corrupt = os.path.join(SHARED, "corrupt")
        if os.path.isdir(corrupt):
            files += sorted(os.path.join(corrupt, f) for f in os.listdir(corrupt))
        passed, failed = run_all(binary, files, jobs)
        p2, f2 = run_options(binary, os.path.join(d, "options"), jobs)
        passed += p2; failed += f2
    elif argv[1] == "mutate":
        n = int(argv[3])
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
        keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
        rng = random.Random(seed)
        src = samples()
        blobs = {p: open(p, "rb").read() for p in src}
        d = keep or tempfile.mkdtemp(prefix="darkroom-mutants-")
        os.makedirs(d, exist_ok=True)
        files = []
        for i in range(n):
            p = rng.choice(src)
            m = os.path.join(d, "m%05d-%s" % (i, os.path.basename(p)))
            with open(m, "wb") as f:
                f.write(mutate_bytes(rng, blobs[p]))
            files.append(m)
        t0 = time.monotonic()
        passed, failed = run_all(binary, files, jobs)
        # Mutants of the crafted option files (N / 10 of them), each through every option of its kind
        # (the crafted set is generated when no --options DIR is given).
        if True:
            src_opts = argv[argv.index("--options") + 1] if "--options" in argv else None
            if src_opts is None:
                src_opts = os.path.join(d, "crafted-options")
                option_corpus(src_opts)
            od = os.path.join(d, "options")
            os.makedirs(od, exist_ok=True)
            names = sorted(f for f in os.listdir(src_opts) if f.split("-", 1)[0] in OPTION_COMMANDS)
            for i in range(n // 10):
                f = rng.choice(names)
                with open(os.path.join(src_opts, f), "rb") as fh:
                    data = fh.read()
                with open(os.path.join(od, "%s-m%05d" % (f.split("-", 1)[0], i)), "wb") as fh:
                    fh.write(mutate_bytes(rng, data))
            p2, f2 = run_options(binary, od, jobs)
            passed += p2; failed += f2
        print("mutants: %d from %d samples, seed %d, %.0f s" % (n, len(src), seed, time.monotonic() - t0))
        if not keep:
            shutil.rmtree(d, ignore_errors=True)
    else:
        print(__doc__); return 2
    print("runs per command: " + ", ".join("%s %d" % (k, COUNTS[k]) for k in sorted(COUNTS)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
