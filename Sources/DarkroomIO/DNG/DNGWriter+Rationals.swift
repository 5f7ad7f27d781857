import Glibc

extension DNGWriter {
    /// libtiff stores (S)RATIONAL tags from 32-bit floats as its closest fraction
    /// (0.8716 → 0.8715999722…). To write what DNG writers conventionally write, every rational
    /// of our image IFDs is re-encoded in place: integers as n/1, others as round(v·10000)/10000
    /// — exact for values already rounded to 1/10000 by `q` — and ExposureTime under a second as
    /// 1/round(1/v). Same size, so only values change.
    static func normaliseRationals(path: String) throws(TIFFError) {
        let file = try TIFFFile(storage: ByteStorage(mapping: path))
        let r = file.reader
        var patches: [(offset: Int, bytes: [UInt8])] = []
        func enc32(_ v: UInt32) -> [UInt8] {
            let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            return r.bigEndian ? le.reversed() : le
        }
        for ifd in file.allImageIFDs {
            for tag in ifd.tagOrder {
                guard let e = ifd.entry(tag), let type = e.fieldType, type == .rational || type == .srational,
                      let values = try ifd.doubles(tag) else { continue }
                var out: [UInt8] = []
                for v in values {
                    let isInteger = v == v.rounded()
                    // ExposureTime below a second as 1/N seconds (1/8000 would be 1/10000 in k/10000).
                    let reciprocal = tag == TIFFTag.exposureTime && v > 0 && v < 1 && 1 / v < Double(UInt32.max)
                    let num = reciprocal ? 1 : isInteger ? v : (v * 10000).rounded()
                    let den: Double = reciprocal ? (1 / v).rounded() : isInteger ? 1 : 10000
                    let fits = type == .rational ? (num >= 0 && num <= Double(UInt32.max)) : (num >= Double(Int32.min) && num <= Double(Int32.max))
                    guard fits else { out = []; break }
                    let n = type == .rational ? UInt32(num) : UInt32(bitPattern: Int32(num))
                    out += enc32(n) + enc32(UInt32(den))
                }
                if !out.isEmpty { patches.append((e.valueOffset, out)) }
            }
        }
        guard !patches.isEmpty else { return }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .writeFailed(reason: "reopen for rationals: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        for p in patches {
            let n = p.bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(p.offset)) }
            guard n == p.bytes.count else { throw .writeFailed(reason: "pwrite: \(String(cString: strerror(errno)))") }
        }
    }
}
