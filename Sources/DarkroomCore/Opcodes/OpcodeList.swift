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

    // Parsing and encoding the byte stream: `OpcodeList+Codec.swift` in DarkroomFormats (file
    // bytes are parsed only there, in code compiled with runtime checks).

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
