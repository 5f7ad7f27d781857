import DarkroomCore
/// Reads little- or big-endian integers from a byte buffer. Every read is bounds-checked and
/// throws `TIFFError.truncated` instead of trapping; offsets are `Int` and never wrap.
///
/// The storage is shared, never copied (only `copy` copies, for tag values).
/// Offsets are relative to `base`, so a TIFF structure embedded in a larger file (a camera
/// profile inside a DNG, say) is read in place.
public struct ByteReader: Sendable {
    public let storage: ByteStorage
    public let bigEndian: Bool
    /// Absolute position of offset 0.
    public let base: Int

    public init(storage: ByteStorage, bigEndian: Bool, base: Int = 0) {
        self.storage = storage
        self.bigEndian = bigEndian
        self.base = max(0, min(base, storage.count))
    }

    public init(bytes: [UInt8], bigEndian: Bool, base: Int = 0) {
        self.init(storage: ByteStorage(bytes), bigEndian: bigEndian, base: base)
    }

    /// Bytes addressable from `base`.
    public var count: Int { storage.count - base }

    /// Throws unless `count` bytes starting at `offset` lie inside the buffer.
    public func check(_ offset: Int, _ count: Int) throws(TIFFError) {
        guard offset >= 0, count >= 0 else { throw .truncated(at: offset, needed: count) }
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= self.count else { throw .truncated(at: offset, needed: count) }
    }

    public func u8(_ offset: Int) throws(TIFFError) -> UInt8 {
        try check(offset, 1)
        return storage[base + offset]
    }

    public func u16(_ offset: Int) throws(TIFFError) -> UInt16 {
        try check(offset, 2)
        let p = base + offset
        let a = UInt16(storage[p]), b = UInt16(storage[p + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    public func u32(_ offset: Int) throws(TIFFError) -> UInt32 {
        try check(offset, 4)
        return storage.load32(base + offset, bigEndian: bigEndian)
    }

    public func u64(_ offset: Int) throws(TIFFError) -> UInt64 {
        let a = UInt64(try u32(offset)), b = UInt64(try u32(offset + 4))
        return bigEndian ? a << 32 | b : b << 32 | a
    }

    /// An unsigned integer of `size` bytes (0…8) at `offset`, in the reader's byte order (the
    /// variable-width fields of ISOBMFF `iloc`, say).
    public func uint(_ offset: Int, size: Int) throws(TIFFError) -> UInt64 {
        guard (0...8).contains(size) else { throw .truncated(at: offset, needed: size) }
        try check(offset, size)
        var v: UInt64 = 0
        for i in 0..<size {
            let byte = UInt64(storage[base + offset + (bigEndian ? i : size - 1 - i)])
            v = v << 8 | byte
        }
        return v
    }

    public func i16(_ offset: Int) throws(TIFFError) -> Int16 { Int16(bitPattern: try u16(offset)) }
    public func i32(_ offset: Int) throws(TIFFError) -> Int32 { Int32(bitPattern: try u32(offset)) }
    public func f32(_ offset: Int) throws(TIFFError) -> Float { Float(bitPattern: try u32(offset)) }
    public func f64(_ offset: Int) throws(TIFFError) -> Double { Double(bitPattern: try u64(offset)) }

    /// A copy of `count` bytes at `offset`.
    public func copy(_ offset: Int, _ count: Int) throws(TIFFError) -> [UInt8] {
        try check(offset, count)
        return storage.copy((base + offset)..<(base + offset + count))
    }
}
