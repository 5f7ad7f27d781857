/// A DNG opcode list (tags `OpcodeList1` 51008, `OpcodeList2` 51009, `OpcodeList3` 51022;
/// DNG 1.7 chapter 7), parsed and validated before anything runs.
///
/// Stream layout (always big-endian): UInt32 opcode count, then per opcode UInt32 id,
/// UInt32 DNG version, UInt32 flags, UInt32 parameter byte count, and the parameters.
///
/// Where the lists run (see DESIGN.md): OpcodeList1 on the stored raw values (`applyRaw`),
/// OpcodeList2 on the linearised, black-subtracted mosaic normalised to 0…1, OpcodeList3 on the
/// demosaiced RGB, both Float with 0 = black and 1 = white (`applyPointwise` / `applyWhole`).
///
/// Clamping: Darkroom does **not** clamp Float results (a GainMap may push a value above 1,
/// a Delta below 0); values stay as computed until the pipeline's quantisation, so highlight
/// handling is decided in one place. (The Adobe DNG SDK instead clamps GainMap output at 1.0
/// and warp output to 0…1.) `applyRaw` writes UInt16, so it rounds and clamps to 0…65535
/// after each opcode, as the SDK quantises its 16-bit stage-1 image after each opcode.
public struct OpcodeList: Sendable, Equatable {
    public var opcodes: [DNGOpcode]

    public init(opcodes: [DNGOpcode] = []) { self.opcodes = opcodes }

    /// Smallest possible size of one opcode record (its header).
    static let headerBytes = 16

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

    /// True when every opcode is a per-pixel function of (position, value): GainMap, MapTable,
    /// MapPolynomial, Delta/Scale PerRow/Column, FixVignetteRadial (and optional unknown opcodes,
    /// which are skipped). Such lists can be applied per tile with `applyPointwise`.
    public var isPointwise: Bool { opcodes.allSatisfy(\.isPointwise) }

    /// The list a preview-quality render runs: opcodes flagged SkipIfPreview removed.
    public var forPreview: OpcodeList { OpcodeList(opcodes: opcodes.filter { !$0.isPreviewOnly }) }

    /// One line per opcode Darkroom will skip (optional unknown or rejected opcodes), for RawMetadata.warnings.
    public var warnings: [String] {
        opcodes.compactMap { op in
            guard case let .unknown(id, version, flags, data) = op, flags & DNGOpcode.flagOptional != 0 else { return nil }
            return "\(DNGOpcode.name(forID: id)) (id \(id), DNG \(versionString(version)), \(data.count) bytes): optional opcode not applied"
        }
    }
}

func versionString(_ v: UInt32) -> String { "\(v >> 24).\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)" }
