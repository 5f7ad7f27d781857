import DarkroomCore

/// The byte stream of a DNG opcode list (DNG 1.7 chapter 7): parsing (bounds-checked, never
/// trapping on hostile bytes) and encoding. See `OpcodeList` in DarkroomCore for the semantics.
extension OpcodeList {
    /// Smallest possible size of one opcode record (its header).
    package static let headerBytes = 16

    /// Parses an opcode list. Known opcodes get their parameters checked (exact byte counts,
    /// plane counts, areas, pitch > 0, map point counts, finite coefficients); an optional
    /// opcode whose parameters fail those checks, or whose DNG version is newer than 1.7, is kept
    /// as `.unknown` (it will be skipped with a warning). Never traps on hostile bytes.
    public static func parse(_ bytes: [UInt8]) throws(OpcodeError) -> OpcodeList {
        var header = BigEndianReader(bytes, from: 0, to: bytes.count, opcode: "OpcodeList")
        let count = try header.u32()
        if UInt64(count) * UInt64(headerBytes) > UInt64(header.remaining) {
            throw .countTooLarge(count: count, bytes: bytes.count)
        }
        var offset = 4
        var opcodes: [DNGOpcode] = []
        opcodes.reserveCapacity(Int(count))
        for _ in 0..<count {
            var r = BigEndianReader(bytes, from: offset, to: bytes.count, opcode: "OpcodeList")
            let id = try r.u32(), version = try r.u32(), flags = try r.u32(), size = try r.u32()
            let name = DNGOpcode.name(forID: id)
            let start = r.offset
            if Int(size) > r.remaining { throw .truncated(opcode: name, at: start, needed: Int(size) - r.remaining) }
            let end = start + Int(size)
            offset = end
            let unknown = DNGOpcode.unknown(id: id, version: version, flags: flags, data: Array(bytes[start..<end]))
            if id < 1 || id > 14 || version > DNGOpcode.newestSupportedVersion {
                opcodes.append(unknown)
                continue
            }
            do throws(OpcodeError) {
                var p = BigEndianReader(bytes, from: start, to: end, opcode: name)
                let op = try parseParameters(id: id, version: version, flags: flags, reader: &p)
                if p.remaining != 0 { throw .sizeMismatch(opcode: name, declared: Int(size), expected: Int(size) - p.remaining) }
                opcodes.append(op)
            } catch {
                if flags & DNGOpcode.flagOptional != 0 { opcodes.append(unknown) } else { throw error }
            }
        }
        if offset != bytes.count { throw .trailingBytes(count: bytes.count - offset) }
        return OpcodeList(opcodes: opcodes)
    }

    /// Encodes the list; `encode(parse(b)) == b` for every `b` that parses.
    public func encode() -> [UInt8] {
        var w = BigEndianWriter()
        w.u32(UInt32(truncatingIfNeeded: opcodes.count))
        for op in opcodes {
            var p = BigEndianWriter()
            op.encodeParameters(into: &p)
            w.u32(op.id); w.u32(op.version); w.u32(op.flags)
            w.u32(UInt32(truncatingIfNeeded: p.bytes.count))
            w.bytes.append(contentsOf: p.bytes)
        }
        return w.bytes
    }

}
