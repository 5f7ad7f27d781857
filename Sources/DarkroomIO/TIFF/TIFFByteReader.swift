/// Reads little- or big-endian integers from a byte buffer. Every read is bounds-checked and
/// throws `TIFFError.truncated` instead of trapping; offsets are `Int` and never wrap.
///
/// The buffer is shared (copy-on-write), never copied: slicing returns an `ArraySlice`.
public struct TIFFByteReader: Sendable {
    public let bytes: [UInt8]
    public let bigEndian: Bool

    public init(bytes: [UInt8], bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    public var count: Int { bytes.count }

    /// Throws unless `count` bytes starting at `offset` lie inside the buffer.
    @inlinable
    public func check(_ offset: Int, _ count: Int) throws(TIFFError) {
        guard offset >= 0, count >= 0 else { throw .truncated(at: offset, needed: count) }
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= bytes.count else { throw .truncated(at: offset, needed: count) }
    }

    public func u8(_ offset: Int) throws(TIFFError) -> UInt8 {
        try check(offset, 1)
        return bytes[offset]
    }

    public func u16(_ offset: Int) throws(TIFFError) -> UInt16 {
        try check(offset, 2)
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    public func u32(_ offset: Int) throws(TIFFError) -> UInt32 {
        try check(offset, 4)
        var v: UInt32 = 0
        if bigEndian {
            for i in 0..<4 { v = v << 8 | UInt32(bytes[offset + i]) }
        } else {
            for i in (0..<4).reversed() { v = v << 8 | UInt32(bytes[offset + i]) }
        }
        return v
    }

    public func u64(_ offset: Int) throws(TIFFError) -> UInt64 {
        let a = UInt64(try u32(offset)), b = UInt64(try u32(offset + 4))
        return bigEndian ? a << 32 | b : b << 32 | a
    }

    public func i16(_ offset: Int) throws(TIFFError) -> Int16 { Int16(bitPattern: try u16(offset)) }
    public func i32(_ offset: Int) throws(TIFFError) -> Int32 { Int32(bitPattern: try u32(offset)) }
    public func f32(_ offset: Int) throws(TIFFError) -> Float { Float(bitPattern: try u32(offset)) }
    public func f64(_ offset: Int) throws(TIFFError) -> Double { Double(bitPattern: try u64(offset)) }

    /// `count` bytes at `offset`, without copying.
    public func slice(_ offset: Int, _ count: Int) throws(TIFFError) -> ArraySlice<UInt8> {
        try check(offset, count)
        return bytes[offset..<(offset + count)]
    }
}
