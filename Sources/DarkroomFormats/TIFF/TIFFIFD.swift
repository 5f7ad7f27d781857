import DarkroomCore
/// One image file directory with its child directories, and typed, checked accessors.
///
/// Every accessor returns nil when the tag is absent and throws `TIFFError.badEntry` /
/// `.truncated` when it is present but malformed (wrong type, zero count, bytes past the end).
public struct TIFFIFD: Sendable {
    /// Where the IFD starts in the file.
    public let offset: Int
    /// A readable position in the tree, e.g. "IFD0", "IFD0/SubIFD1", "IFD0/EXIF".
    public let name: String
    public let entries: [UInt16: TIFFEntry]
    /// Tags in file order.
    public let tagOrder: [UInt16]
    public var subIFDs: [TIFFIFD] = []
    // Optional children are held in arrays: a struct cannot contain an Optional of itself.
    private var exifStorage: [TIFFIFD] = []
    private var gpsStorage: [TIFFIFD] = []
    /// The EXIF IFD (tag 34665), if present and readable.
    public var exifIFD: TIFFIFD? {
        get { exifStorage.first }
        set { exifStorage = newValue.map { [$0] } ?? [] }
    }
    /// The GPS IFD (tag 34853), if present and readable.
    public var gpsIFD: TIFFIFD? {
        get { gpsStorage.first }
        set { gpsStorage = newValue.map { [$0] } ?? [] }
    }
    /// Entries as declared in the file (duplicates included).
    public internal(set) var storedEntryCount: Int = 0
    package let reader: ByteReader

    package init(offset: Int, name: String, entries: [TIFFEntry], reader: ByteReader) {
        self.offset = offset
        self.name = name
        var map: [UInt16: TIFFEntry] = [:]
        var order: [UInt16] = []
        for e in entries where map[e.tag] == nil {   // first occurrence wins on duplicates
            map[e.tag] = e
            order.append(e.tag)
        }
        self.entries = map
        self.tagOrder = order
        self.reader = reader
    }

    public func contains(_ tag: UInt16) -> Bool { entries[tag] != nil }
    public func entry(_ tag: UInt16) -> TIFFEntry? { entries[tag] }

    /// This IFD and every IFD below it through SubIFDs (not EXIF/GPS), depth first.
    public var allImageIFDs: [TIFFIFD] { [self] + subIFDs.flatMap { $0.allImageIFDs } }

    // MARK: - Raw bytes

    /// A copy of the value bytes of `tag`, any type.
    public func bytes(_ tag: UInt16) throws(TIFFError) -> [UInt8]? {
        guard let e = entries[tag] else { return nil }
        let range = try valueRange(e)
        return try reader.copy(range.offset, range.count)
    }

    /// Where the value bytes of `e` are (offset relative to the reader's base), checked.
    package func valueRange(_ e: TIFFEntry) throws(TIFFError) -> (offset: Int, count: Int) {
        guard let type = e.fieldType else { throw .badEntry(tag: e.tag, reason: "unknown field type \(e.typeCode)") }
        guard let n = e.byteCount else {
            throw .badEntry(tag: e.tag, reason: "count \(e.count) × \(type.size) bytes overflows")
        }
        do { try reader.check(e.valueOffset, n); return (e.valueOffset, n) } catch {
            throw .badEntry(tag: e.tag, reason: "\(n) value bytes at offset \(e.valueOffset) run past end of file (\(reader.count) bytes)")
        }
    }

    // MARK: - Integers

    /// All values of an integer tag (BYTE, SHORT, LONG, IFD; signed types when non-negative).
    public func uints(_ tag: UInt16) throws(TIFFError) -> [UInt32]? {
        guard let e = entries[tag] else { return nil }
        guard let type = e.fieldType, type.isInteger else {
            throw .badEntry(tag: tag, reason: "type \(e.typeCode) is not an integer type")
        }
        let base = try valueRange(e).offset
        var out: [UInt32] = []
        out.reserveCapacity(e.count)
        for i in 0..<e.count {
            let v: Int64
            switch type {
            case .byte: v = Int64(try reader.u8(base + i))
            case .sbyte: v = Int64(Int8(bitPattern: try reader.u8(base + i)))
            case .short: v = Int64(try reader.u16(base + 2 * i))
            case .sshort: v = Int64(try reader.i16(base + 2 * i))
            case .long, .ifd: v = Int64(try reader.u32(base + 4 * i))
            case .slong: v = Int64(try reader.i32(base + 4 * i))
            default: v = -1
            }
            guard v >= 0 else { throw .badEntry(tag: tag, reason: "negative value \(v) where unsigned expected") }
            out.append(UInt32(v))
        }
        return out
    }

    /// The first value of an integer tag; throws when the tag has no values.
    public func uint(_ tag: UInt16) throws(TIFFError) -> UInt32? {
        guard let vs = try uints(tag) else { return nil }
        guard let v = vs.first else { throw .badEntry(tag: tag, reason: "count 0") }
        return v
    }

    /// The first value as `Int`, for sizes and offsets.
    public func int(_ tag: UInt16) throws(TIFFError) -> Int? {
        guard let v = try uint(tag) else { return nil }
        return Int(v)
    }

    // MARK: - Real numbers

    /// RATIONAL / SRATIONAL values as stored.
    public func rationals(_ tag: UInt16) throws(TIFFError) -> [TIFFRational]? {
        guard let e = entries[tag] else { return nil }
        guard let type = e.fieldType, type == .rational || type == .srational else {
            throw .badEntry(tag: tag, reason: "type \(e.typeCode) is not RATIONAL or SRATIONAL")
        }
        let base = try valueRange(e).offset
        var out: [TIFFRational] = []
        out.reserveCapacity(e.count)
        for i in 0..<e.count {
            let o = base + 8 * i
            if type == .rational {
                out.append(TIFFRational(Int64(try reader.u32(o)), Int64(try reader.u32(o + 4))))
            } else {
                out.append(TIFFRational(Int64(try reader.i32(o)), Int64(try reader.i32(o + 4))))
            }
        }
        return out
    }

    /// Values of any numeric type as `Double` (integers, rationals, FLOAT, DOUBLE).
    /// A rational with a zero denominator is malformed and throws.
    public func doubles(_ tag: UInt16) throws(TIFFError) -> [Double]? {
        guard let e = entries[tag] else { return nil }
        guard let type = e.fieldType else { throw .badEntry(tag: tag, reason: "unknown field type \(e.typeCode)") }
        switch type {
        case .rational, .srational:
            guard let rs = try rationals(tag) else { return nil }
            var out: [Double] = []
            out.reserveCapacity(rs.count)
            for r in rs {
                guard let v = r.value else { throw .badEntry(tag: tag, reason: "rational with zero denominator") }
                out.append(v)
            }
            return out
        case .float, .double:
            let base = try valueRange(e).offset
            var out: [Double] = []
            out.reserveCapacity(e.count)
            for i in 0..<e.count {
                out.append(type == .float ? Double(try reader.f32(base + 4 * i)) : try reader.f64(base + 8 * i))
            }
            return out
        case .ascii, .undefined:
            throw .badEntry(tag: tag, reason: "type \(e.typeCode) is not numeric")
        default:
            guard e.fieldType == .sshort || e.fieldType == .slong || e.fieldType == .sbyte else {
                return try uints(tag)?.map { Double($0) }
            }
            let base = try valueRange(e).offset
            var out: [Double] = []
            for i in 0..<e.count {
                switch type {
                case .sbyte: out.append(Double(Int8(bitPattern: try reader.u8(base + i))))
                case .sshort: out.append(Double(try reader.i16(base + 2 * i)))
                default: out.append(Double(try reader.i32(base + 4 * i)))
                }
            }
            return out
        }
    }

    /// The first value of a numeric tag.
    public func double(_ tag: UInt16) throws(TIFFError) -> Double? {
        guard let vs = try doubles(tag) else { return nil }
        guard let v = vs.first else { throw .badEntry(tag: tag, reason: "count 0") }
        return v
    }

    // MARK: - Text

    /// ASCII (or BYTE/UNDEFINED) text up to the first NUL, trailing spaces removed; UTF-8 is
    /// accepted, invalid sequences are replaced.
    public func string(_ tag: UInt16) throws(TIFFError) -> String? {
        guard let e = entries[tag] else { return nil }
        guard let type = e.fieldType, type == .ascii || type == .byte || type == .undefined else {
            throw .badEntry(tag: tag, reason: "type \(e.typeCode) is not ASCII")
        }
        let range = try valueRange(e)
        var raw = try reader.copy(range.offset, range.count)[...]
        if let nul = raw.firstIndex(of: 0) { raw = raw[raw.startIndex..<nul] }
        while let last = raw.last, last == 0x20 { raw = raw.dropLast() }
        return String(decoding: raw, as: UTF8.self)
    }
}
