/// Bounds-checked reading of a FlatBuffers buffer (the encoding TFLite models use): little-endian
/// scalars, tables found through their vtables, vectors and strings reached by forward `uoffset`s.
/// Every access checks its byte range first and throws `NeuralError.malformed` naming the offset;
/// nothing here can trap on hostile bytes.
struct FlatBufferReader {
    let bytes: [UInt8]
    let file: String

    /// A table: `position` is where its soffset to the vtable sits; `vtable` / `vtableSize` locate
    /// the field-offset array.
    struct Table {
        let position: Int
        let vtable: Int
        let vtableSize: Int
        let tableSize: Int
    }

    /// A vector's element region: `start` is the first element's byte offset.
    struct Vector {
        let start: Int
        let count: Int
    }

    func malformed(_ offset: Int, _ reason: String) -> NeuralError {
        .malformed(file: file, offset: offset, reason: reason)
    }

    /// Throws unless `size` bytes at `offset` lie inside the buffer.
    func require(_ offset: Int, _ size: Int, _ what: String) throws(NeuralError) {
        guard offset >= 0, size >= 0, offset <= bytes.count, size <= bytes.count - offset else {
            throw malformed(offset, "\(what) (\(size) bytes) runs past the end of the \(bytes.count)-byte file")
        }
    }

    func u8(_ o: Int) throws(NeuralError) -> UInt8 {
        try require(o, 1, "byte")
        return bytes[o]
    }

    func u16(_ o: Int) throws(NeuralError) -> UInt16 {
        try require(o, 2, "uint16")
        return UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8
    }

    func u32(_ o: Int) throws(NeuralError) -> UInt32 {
        try require(o, 4, "uint32")
        return UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
    }

    func i32(_ o: Int) throws(NeuralError) -> Int32 { Int32(bitPattern: try u32(o)) }

    func u64(_ o: Int) throws(NeuralError) -> UInt64 {
        UInt64(try u32(o)) | UInt64(try u32(o + 4)) << 32
    }

    /// Follows the uoffset stored at `o` (always forward, relative to `o`).
    func indirect(_ o: Int) throws(NeuralError) -> Int {
        let target = o + Int(try u32(o))
        try require(target, 4, "offset target")
        return target
    }

    /// The table whose soffset sits at `position`.
    func table(at position: Int) throws(NeuralError) -> Table {
        let soffset = Int(try i32(position))
        let vtable = position - soffset
        let vtableSize = Int(try u16(vtable))
        let tableSize = Int(try u16(vtable + 2))
        guard vtableSize >= 4, vtableSize % 2 == 0 else { throw malformed(vtable, "vtable size \(vtableSize)") }
        try require(vtable, vtableSize, "vtable")
        try require(position, max(tableSize, 4), "table")
        return Table(position: position, vtable: vtable, vtableSize: vtableSize, tableSize: tableSize)
    }

    /// The root table (the uoffset at byte 0).
    func root() throws(NeuralError) -> Table {
        try table(at: try indirect(0))
    }

    /// The absolute position of field `index` of `t`, or nil when absent (default value).
    func field(_ t: Table, _ index: Int) throws(NeuralError) -> Int? {
        let slot = 4 + 2 * index
        guard slot + 2 <= t.vtableSize else { return nil }
        let offset = Int(try u16(t.vtable + slot))
        guard offset != 0 else { return nil }
        guard offset < max(t.tableSize, 4) else { throw malformed(t.vtable + slot, "field \(index) lies outside its table") }
        return t.position + offset
    }

    func int32(_ t: Table, _ index: Int, default value: Int32 = 0) throws(NeuralError) -> Int32 {
        guard let p = try field(t, index) else { return value }
        return try i32(p)
    }

    func uint32(_ t: Table, _ index: Int, default value: UInt32 = 0) throws(NeuralError) -> UInt32 {
        guard let p = try field(t, index) else { return value }
        return try u32(p)
    }

    func uint64(_ t: Table, _ index: Int) throws(NeuralError) -> UInt64 {
        guard let p = try field(t, index) else { return 0 }
        return try u64(p)
    }

    func uint8(_ t: Table, _ index: Int, default value: UInt8 = 0) throws(NeuralError) -> UInt8 {
        guard let p = try field(t, index) else { return value }
        return try u8(p)
    }

    func bool(_ t: Table, _ index: Int) throws(NeuralError) -> Bool {
        try uint8(t, index) != 0
    }

    func tableField(_ t: Table, _ index: Int) throws(NeuralError) -> Table? {
        guard let p = try field(t, index) else { return nil }
        return try table(at: try indirect(p))
    }

    /// Vector field `index` whose elements are `elementSize` bytes; its whole extent is checked.
    func vector(_ t: Table, _ index: Int, elementSize: Int) throws(NeuralError) -> Vector? {
        guard let p = try field(t, index) else { return nil }
        let v = try indirect(p)
        let count = Int(try u32(v))
        // count < 2^32 and elementSize ≤ 8: the product cannot overflow Int.
        try require(v + 4, count * elementSize, "vector of \(count) elements")
        return Vector(start: v + 4, count: count)
    }

    func tableVector(_ t: Table, _ index: Int) throws(NeuralError) -> [Table] {
        guard let v = try vector(t, index, elementSize: 4) else { return [] }
        var tables: [Table] = []
        tables.reserveCapacity(v.count)
        for k in 0..<v.count { tables.append(try table(at: try indirect(v.start + 4 * k))) }
        return tables
    }

    func int32Vector(_ t: Table, _ index: Int) throws(NeuralError) -> [Int32] {
        guard let v = try vector(t, index, elementSize: 4) else { return [] }
        var values: [Int32] = []
        values.reserveCapacity(v.count)
        for k in 0..<v.count { values.append(try i32(v.start + 4 * k)) }
        return values
    }

    func string(_ t: Table, _ index: Int) throws(NeuralError) -> String? {
        guard let v = try vector(t, index, elementSize: 1) else { return nil }
        return String(decoding: bytes[v.start..<(v.start + v.count)], as: UTF8.self)
    }

    /// The byte range of a `[ubyte]` field.
    func byteRange(_ t: Table, _ index: Int) throws(NeuralError) -> Range<Int>? {
        guard let v = try vector(t, index, elementSize: 1) else { return nil }
        return v.start..<(v.start + v.count)
    }
}
