import DarkroomCore
/// Sequential big-endian reading of an opcode's parameter bytes (opcode lists are always
/// big-endian, whatever the TIFF byte order): a cursor over the one bounds-checked
/// `ByteReader`, limited to `end`. Every read checks the remaining length first.
package struct BigEndianReader {
    private let reader: ByteReader
    private(set) var offset: Int
    package let end: Int
    package let opcode: String

    package init(_ bytes: [UInt8], from offset: Int, to end: Int, opcode: String) {
        self.reader = ByteReader(bytes: bytes, bigEndian: true)
        self.offset = offset; self.end = min(end, bytes.count); self.opcode = opcode
    }

    package var remaining: Int { end - offset }

    package mutating func need(_ n: Int) throws(OpcodeError) {
        if n < 0 || n > end - offset { throw .truncated(opcode: opcode, at: offset, needed: n - (end - offset)) }
    }

    package mutating func u32() throws(OpcodeError) -> UInt32 {
        try need(4)
        defer { offset += 4 }
        do { return try reader.u32(offset) } catch { throw .truncated(opcode: opcode, at: offset, needed: 4) }
    }

    package mutating func u16() throws(OpcodeError) -> UInt16 {
        try need(2)
        defer { offset += 2 }
        do { return try reader.u16(offset) } catch { throw .truncated(opcode: opcode, at: offset, needed: 2) }
    }

    package mutating func f32() throws(OpcodeError) -> Float { Float(bitPattern: try u32()) }

    package mutating func f64() throws(OpcodeError) -> Double {
        let hi = UInt64(try u32()), lo = UInt64(try u32())
        return Double(bitPattern: hi << 32 | lo)
    }

    package mutating func f64s(_ n: Int) throws(OpcodeError) -> [Double] {
        guard n >= 0, n <= (end - offset) / 8 else { throw .truncated(opcode: opcode, at: offset, needed: n.multipliedReportingOverflow(by: 8).partialValue) }
        var out: [Double] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try f64()) }
        return out
    }
}

/// Big-endian writing, the exact mirror of `BigEndianReader`.
package struct BigEndianWriter {
    package var bytes: [UInt8] = []
    package mutating func u32(_ v: UInt32) {
        bytes.append(UInt8(v >> 24)); bytes.append(UInt8(v >> 16 & 0xFF))
        bytes.append(UInt8(v >> 8 & 0xFF)); bytes.append(UInt8(v & 0xFF))
    }
    package mutating func u16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    package mutating func f32(_ v: Float) { u32(v.bitPattern) }
    package mutating func f64(_ v: Double) { u32(UInt32(v.bitPattern >> 32)); u32(UInt32(v.bitPattern & 0xFFFF_FFFF)) }
    package mutating func f64s(_ v: [Double]) { for x in v { f64(x) } }
}
