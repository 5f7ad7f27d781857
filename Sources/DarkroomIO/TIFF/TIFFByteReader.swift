/// Reads little- or big-endian integers from a byte buffer. Every read is bounds-checked and
/// throws `TIFFError.truncated` instead of trapping; offsets are `Int` and never wrap.
///
/// The buffer is shared (copy-on-write), never copied: slicing returns an `ArraySlice`.
/// Offsets are relative to `base`, so a TIFF structure embedded in a larger file (a camera
/// profile inside a DNG, say) is read in place; `slice` returns absolute indices into `bytes`.
public struct TIFFByteReader: Sendable {
    public let bytes: [UInt8]
    public let bigEndian: Bool
    /// Absolute position of offset 0.
    public let base: Int

    public init(bytes: [UInt8], bigEndian: Bool, base: Int = 0) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.base = max(0, min(base, bytes.count))
    }

    /// Bytes addressable from `base`.
    public var count: Int { bytes.count - base }

    /// Throws unless `count` bytes starting at `offset` lie inside the buffer.
    public func check(_ offset: Int, _ count: Int) throws(TIFFError) {
        guard offset >= 0, count >= 0 else { throw .truncated(at: offset, needed: count) }
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= self.count else { throw .truncated(at: offset, needed: count) }
    }

    public func u8(_ offset: Int) throws(TIFFError) -> UInt8 {
        try check(offset, 1)
        return bytes[base + offset]
    }

    public func u16(_ offset: Int) throws(TIFFError) -> UInt16 {
        try check(offset, 2)
        let p = base + offset
        let a = UInt16(bytes[p]), b = UInt16(bytes[p + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    public func u32(_ offset: Int) throws(TIFFError) -> UInt32 {
        try check(offset, 4)
        let p = base + offset
        var v: UInt32 = 0
        if bigEndian {
            for i in 0..<4 { v = v << 8 | UInt32(bytes[p + i]) }
        } else {
            for i in (0..<4).reversed() { v = v << 8 | UInt32(bytes[p + i]) }
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

    /// `count` bytes at `offset`, without copying (indices are absolute positions in `bytes`).
    public func slice(_ offset: Int, _ count: Int) throws(TIFFError) -> ArraySlice<UInt8> {
        try check(offset, count)
        return bytes[(base + offset)..<(base + offset + count)]
    }
}
