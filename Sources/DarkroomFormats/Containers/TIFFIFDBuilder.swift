import DarkroomCore
/// Builds one TIFF image file directory (IFD) in big-endian ("MM") byte order, as used inside
/// EXIF APP1 segments, HEIF `Exif` items and MPF APP2 segments (TIFF 6.0 §2).
///
/// Entries are kept sorted by tag on serialisation; values longer than four bytes go into a data
/// area right after the directory, each started on an even offset.
package struct TIFFIFDBuilder {
    package enum FieldType: UInt16 {
        case byte = 1, ascii = 2, short = 3, long = 4, rational = 5, undefined = 7, slong = 9, srational = 10
        var size: Int {
            switch self {
            case .byte, .ascii, .undefined: return 1
            case .short: return 2
            case .long, .slong: return 4
            case .rational, .srational: return 8
            }
        }
    }

    package struct Entry {
        var tag: UInt16
        var type: FieldType
        var count: UInt32
        /// The encoded value bytes (big-endian), `count * type.size` long.
        var value: [UInt8]
    }

    private(set) var entries: [Entry] = []

    package var isEmpty: Bool { entries.isEmpty }

    package mutating func add(_ tag: UInt16, _ type: FieldType, count: Int, value: [UInt8]) {
        entries.removeAll { $0.tag == tag }
        entries.append(Entry(tag: tag, type: type, count: UInt32(count), value: value))
    }

    package mutating func ascii(_ tag: UInt16, _ s: String?) {
        guard let s, !s.isEmpty else { return }
        // TIFF ASCII is 7-bit with a NUL terminator; UTF-8 bytes are kept as most writers do.
        let bytes = Array(s.utf8.filter { $0 != 0 }) + [0]
        add(tag, .ascii, count: bytes.count, value: bytes)
    }

    package mutating func short(_ tag: UInt16, _ v: UInt16) { add(tag, .short, count: 1, value: BigEndian.u16(v)) }
    package mutating func long(_ tag: UInt16, _ v: UInt32) { add(tag, .long, count: 1, value: BigEndian.u32(v)) }
    package mutating func undefined(_ tag: UInt16, _ bytes: [UInt8]) { add(tag, .undefined, count: bytes.count, value: bytes) }
    package mutating func byte(_ tag: UInt16, _ bytes: [UInt8]) { add(tag, .byte, count: bytes.count, value: bytes) }

    package mutating func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) {
        add(tag, .rational, count: values.count, value: values.flatMap { BigEndian.u32($0.0) + BigEndian.u32($0.1) })
    }

    package mutating func srational(_ tag: UInt16, _ v: (Int32, Int32)) {
        add(tag, .srational, count: 1,
            value: BigEndian.u32(UInt32(bitPattern: v.0)) + BigEndian.u32(UInt32(bitPattern: v.1)))
    }

    /// Bytes this IFD occupies: count, entries, next-IFD offset, and the out-of-line data area.
    package var byteSize: Int {
        var n = 2 + 12 * entries.count + 4
        for e in entries where e.value.count > 4 { n += (e.value.count + 1) & ~1 }
        return n
    }

    /// Appends the IFD to `out`; `offset` is where it starts relative to the TIFF header
    /// (the position `out.count` corresponds to, minus the header's position).
    package func serialize(at offset: Int, nextIFD: UInt32, into out: inout [UInt8]) {
        let sorted = entries.sorted { $0.tag < $1.tag }
        out += BigEndian.u16(UInt16(sorted.count))
        var dataOffset = offset + 2 + 12 * sorted.count + 4
        var data: [UInt8] = []
        for e in sorted {
            out += BigEndian.u16(e.tag) + BigEndian.u16(e.type.rawValue) + BigEndian.u32(e.count)
            if e.value.count <= 4 {
                out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
            } else {
                out += BigEndian.u32(UInt32(dataOffset))
                data += e.value
                if e.value.count & 1 == 1 { data.append(0) }
                dataOffset += (e.value.count + 1) & ~1
            }
        }
        out += BigEndian.u32(nextIFD)
        out += data
    }
}

/// Big-endian integer encoding for the container writers.
package enum BigEndian {
    @inline(__always) package static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    @inline(__always) package static func u32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    @inline(__always) package static func u64(_ v: UInt64) -> [UInt8] { u32(UInt32(v >> 32)) + u32(UInt32(v & 0xFFFF_FFFF)) }
}
