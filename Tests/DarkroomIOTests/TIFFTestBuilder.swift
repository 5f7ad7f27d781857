/// Builds small TIFF/DNG/DCP byte streams for tests, in either byte order. IFDs are appended
/// one after another; children are appended first so parents can point at them.
struct TIFFTestBuilder {
    struct Entry {
        var tag: UInt16, type: UInt16, count: Int, data: [UInt8]
    }

    private(set) var bytes: [UInt8] = []
    let bigEndian: Bool

    init(bigEndian: Bool = false, magic: UInt16 = 42) {
        self.bigEndian = bigEndian
        bytes = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        bytes += enc16(magic) + enc32(0)
    }

    func enc16(_ v: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
    func enc32(_ v: UInt32) -> [UInt8] {
        let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        return bigEndian ? le.reversed() : le
    }

    func short(_ tag: UInt16, _ v: [UInt16]) -> Entry { Entry(tag: tag, type: 3, count: v.count, data: v.flatMap(enc16)) }
    func long(_ tag: UInt16, _ v: [UInt32]) -> Entry { Entry(tag: tag, type: 4, count: v.count, data: v.flatMap(enc32)) }
    func byte(_ tag: UInt16, _ v: [UInt8], type: UInt16 = 1) -> Entry { Entry(tag: tag, type: type, count: v.count, data: v) }
    func ascii(_ tag: UInt16, _ s: String) -> Entry {
        let b = Array(s.utf8) + [0]
        return Entry(tag: tag, type: 2, count: b.count, data: b)
    }
    func rational(_ tag: UInt16, _ v: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: v.count, data: v.flatMap { enc32($0.0) + enc32($0.1) })
    }
    func srational(_ tag: UInt16, _ v: [(Int32, Int32)]) -> Entry {
        Entry(tag: tag, type: 10, count: v.count, data: v.flatMap { enc32(UInt32(bitPattern: $0.0)) + enc32(UInt32(bitPattern: $0.1)) })
    }
    func float(_ tag: UInt16, _ v: [Float]) -> Entry { Entry(tag: tag, type: 11, count: v.count, data: v.flatMap { enc32($0.bitPattern) }) }
    /// An entry with arbitrary raw fields (for hostile cases).
    func raw(_ tag: UInt16, type: UInt16, count: UInt32, value: UInt32) -> Entry {
        Entry(tag: tag, type: type, count: Int(count), data: enc32(value))
    }

    /// Appends raw bytes (pixel data, say) and returns their offset.
    mutating func append(_ data: [UInt8]) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let o = bytes.count
        bytes += data
        return o
    }

    /// Appends an IFD (values larger than 4 bytes follow it) and returns its offset.
    mutating func appendIFD(_ entries: [Entry], next: UInt32 = 0) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let start = bytes.count
        var valuesAt = start + 2 + 12 * entries.count + 4
        var values: [UInt8] = []
        bytes += enc16(UInt16(entries.count))
        for e in entries.sorted(by: { $0.tag < $1.tag }) {
            bytes += enc16(e.tag) + enc16(e.type) + enc32(UInt32(e.count))
            if e.data.count <= 4 {
                bytes += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
            } else {
                bytes += enc32(UInt32(valuesAt))
                values += e.data
                if values.count % 2 == 1 { values.append(0) }
                valuesAt = start + 2 + 12 * entries.count + 4 + values.count
            }
        }
        bytes += enc32(next)
        bytes += values
        return start
    }

    mutating func setFirstIFD(_ offset: Int) { patch32(at: 4, UInt32(offset)) }
    mutating func patch32(at o: Int, _ v: UInt32) { bytes.replaceSubrange(o..<(o + 4), with: enc32(v)) }
}
