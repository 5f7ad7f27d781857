import DarkroomCore
/// The payload of an `iloc` box (ISO/IEC 14496-12 §8.11.3), parsed so that entries can be added
/// and file offsets moved, then written back.
///
/// Versions 0–2 are read; writing keeps the version unless an entry needs a construction method
/// (`idat` data, method 1), which version 0 cannot express: then version 1 is written. Field
/// sizes (offset, length, base offset, index) are kept as read.
struct ISOBMFFItemLocations {
    struct Extent { var index: UInt64; var offset: UInt64; var length: UInt64 }
    struct Entry {
        var itemID: UInt32
        /// 0 = file offset, 1 = `idat`, 2 = item.
        var constructionMethod: UInt8
        var dataReferenceIndex: UInt16
        var baseOffset: UInt64
        var extents: [Extent]
    }

    var version: UInt8
    var flags: [UInt8]
    var offsetSize: Int, lengthSize: Int, baseOffsetSize: Int, indexSize: Int
    var entries: [Entry]

    init(_ p: [UInt8]) throws(EncodeError) {
        let r = ByteReader(bytes: p, bigEndian: true)
        func read(_ at: Int, _ n: Int) throws(EncodeError) -> UInt64 {
            do { return try r.uint(at, size: n) } catch { throw .container(format: "HEIF", reason: "iloc truncated") }
        }
        guard p.count >= 8 else { throw .container(format: "HEIF", reason: "iloc truncated") }
        version = p[0]
        guard version <= 2 else { throw .container(format: "HEIF", reason: "iloc version \(version)") }
        flags = Array(p[1..<4])
        offsetSize = Int(p[4] >> 4); lengthSize = Int(p[4] & 15); baseOffsetSize = Int(p[5] >> 4)
        indexSize = version >= 1 ? Int(p[5] & 15) : 0
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw .container(format: "HEIF", reason: "iloc field size \(size)")
        }
        var off = 6
        let count: Int
        if version < 2 { count = Int(try read(off, 2)); off += 2 } else { count = Int(try read(off, 4)); off += 4 }
        entries = []
        for _ in 0..<count {
            let id = UInt32(try read(off, version < 2 ? 2 : 4)); off += version < 2 ? 2 : 4
            var method: UInt8 = 0
            if version >= 1 { method = UInt8(try read(off, 2) & 15); off += 2 }
            let dataReference = UInt16(try read(off, 2)); off += 2
            let base = try read(off, baseOffsetSize); off += baseOffsetSize
            let extentCount = Int(try read(off, 2)); off += 2
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                let index = try read(off, indexSize); off += indexSize
                let offset = try read(off, offsetSize); off += offsetSize
                let length = try read(off, lengthSize); off += lengthSize
                extents.append(Extent(index: index, offset: offset, length: length))
            }
            entries.append(Entry(itemID: id, constructionMethod: method, dataReferenceIndex: dataReference,
                                 baseOffset: base, extents: extents))
        }
    }

    /// Adds `delta` to every file offset (construction method 0) at or beyond `threshold`.
    mutating func shift(by delta: Int, from threshold: Int) throws(EncodeError) {
        for e in entries.indices where entries[e].constructionMethod == 0 {
            let base = entries[e].baseOffset
            if baseOffsetSize > 0 && base >= UInt64(threshold) {
                entries[e].baseOffset = try Self.moved(base, by: delta, size: baseOffsetSize)
                continue
            }
            for x in entries[e].extents.indices where base + entries[e].extents[x].offset >= UInt64(threshold) {
                guard offsetSize > 0 else { throw .container(format: "HEIF", reason: "iloc offset_size 0 cannot be shifted") }
                entries[e].extents[x].offset = try Self.moved(entries[e].extents[x].offset, by: delta, size: offsetSize)
            }
        }
    }

    private static func moved(_ value: UInt64, by delta: Int, size: Int) throws(EncodeError) -> UInt64 {
        let v = Int64(clamping: value) + Int64(delta)
        guard v >= 0, size == 8 || v < Int64(1) << (8 * size) else {
            throw .container(format: "HEIF", reason: "shifted iloc offset \(v) does not fit \(size) bytes")
        }
        return UInt64(v)
    }

    func serialized() throws(EncodeError) -> [UInt8] {
        let needsMethod = entries.contains { $0.constructionMethod != 0 }
        let version = needsMethod && self.version == 0 ? 1 : self.version
        let wideIDs = version == 2
        guard wideIDs || entries.count <= 0xFFFF && entries.allSatisfy({ $0.itemID <= 0xFFFF }) else {
            throw .container(format: "HEIF", reason: "item IDs too large for iloc version \(version)")
        }
        func put(_ v: UInt64, _ n: Int, _ what: String, into out: inout [UInt8]) throws(EncodeError) {
            guard n == 8 || v < UInt64(1) << (8 * n) else {
                throw .container(format: "HEIF", reason: "iloc \(what) \(v) does not fit \(n) bytes")
            }
            for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(n - 1 - i)))) }
        }
        var out: [UInt8] = [version] + flags
        out.append(UInt8(offsetSize << 4 | lengthSize))
        out.append(UInt8(baseOffsetSize << 4 | (version >= 1 ? indexSize : 0)))
        try put(UInt64(entries.count), wideIDs ? 4 : 2, "item count", into: &out)
        for e in entries {
            try put(UInt64(e.itemID), wideIDs ? 4 : 2, "item ID", into: &out)
            if version >= 1 { out += [0, e.constructionMethod & 15] }
            out += BigEndian.u16(e.dataReferenceIndex)
            try put(e.baseOffset, baseOffsetSize, "base offset", into: &out)
            guard e.extents.count <= 0xFFFF else { throw .container(format: "HEIF", reason: "too many iloc extents") }
            out += BigEndian.u16(UInt16(e.extents.count))
            for x in e.extents {
                if version >= 1 { try put(x.index, indexSize, "extent index", into: &out) }
                try put(x.offset, offsetSize, "extent offset", into: &out)
                try put(x.length, lengthSize, "extent length", into: &out)
            }
        }
        return out
    }
}
