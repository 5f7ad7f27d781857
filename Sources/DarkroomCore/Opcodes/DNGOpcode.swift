/// One opcode of a DNG opcode list (DNG 1.7 chapter 7, "Opcode List Processing"), with its
/// parsed parameters. Every parameter struct keeps the opcode's `version` (the DNG version
/// that introduced it, as stored) and `flags` so that encoding gives back the stored bytes.
///
/// Coordinates are pixels of the image the list applies to (stored image for OpcodeList1,
/// the stage-2/3 image, i.e. the active area, for OpcodeList2/3); "relative" coordinates are
/// fractions 0…1 of that image's height/width.
public enum DNGOpcode: Sendable, Equatable {
    case warpRectilinear(WarpRectilinear)          // id 1
    case warpFisheye(WarpFisheye)                  // id 2
    case fixVignetteRadial(FixVignetteRadial)      // id 3
    case fixBadPixelsConstant(FixBadPixelsConstant) // id 4
    case fixBadPixelsList(FixBadPixelsList)        // id 5
    case trimBounds(TrimBounds)                    // id 6
    case mapTable(MapTable)                        // id 7
    case mapPolynomial(MapPolynomial)              // id 8
    case gainMap(GainMap)                          // id 9
    case deltaPerRow(PerLineTable)                 // id 10
    case deltaPerColumn(PerLineTable)              // id 11
    case scalePerRow(PerLineTable)                 // id 12
    case scalePerColumn(PerLineTable)              // id 13
    case warpRectilinear2(WarpRectilinear2)        // id 14 (DNG 1.6)
    /// An opcode Darkroom does not know (or whose parameters it rejected while `isOptional`),
    /// kept byte for byte.
    case unknown(id: UInt32, version: UInt32, flags: UInt32, data: [UInt8])

    /// `Flags` bit 0: a reader that cannot apply the opcode may skip it.
    public static let flagOptional: UInt32 = 1
    /// `Flags` bit 1: the opcode may be skipped when rendering preview-quality images.
    public static let flagSkipIfPreview: UInt32 = 2
    /// DNG 1.3.0.0, the version that introduced opcodes 1…13.
    public static let version1_3: UInt32 = 0x0103_0000
    /// DNG 1.6.0.0, the version that introduced WarpRectilinear2.
    public static let version1_6: UInt32 = 0x0106_0000
    /// The newest DNG version whose opcodes Darkroom reads (1.7.0.0).
    public static let newestSupportedVersion: UInt32 = 0x0107_0000

    /// The opcode id as the specification numbers it.
    public var id: UInt32 {
        switch self {
        case .warpRectilinear: return 1
        case .warpFisheye: return 2
        case .fixVignetteRadial: return 3
        case .fixBadPixelsConstant: return 4
        case .fixBadPixelsList: return 5
        case .trimBounds: return 6
        case .mapTable: return 7
        case .mapPolynomial: return 8
        case .gainMap: return 9
        case .deltaPerRow: return 10
        case .deltaPerColumn: return 11
        case .scalePerRow: return 12
        case .scalePerColumn: return 13
        case .warpRectilinear2: return 14
        case let .unknown(id, _, _, _): return id
        }
    }

    /// The specification's name, e.g. "GainMap"; unknown ids read "Opcode<id>".
    public var name: String { Self.name(forID: id) }

    package static func name(forID id: UInt32) -> String {
        switch id {
        case 1: return "WarpRectilinear"
        case 2: return "WarpFisheye"
        case 3: return "FixVignetteRadial"
        case 4: return "FixBadPixelsConstant"
        case 5: return "FixBadPixelsList"
        case 6: return "TrimBounds"
        case 7: return "MapTable"
        case 8: return "MapPolynomial"
        case 9: return "GainMap"
        case 10: return "DeltaPerRow"
        case 11: return "DeltaPerColumn"
        case 12: return "ScalePerRow"
        case 13: return "ScalePerColumn"
        case 14: return "WarpRectilinear2"
        default: return "Opcode\(id)"
        }
    }

    /// The stored `Flags` value.
    public var flags: UInt32 {
        switch self {
        case let .warpRectilinear(p): return p.flags
        case let .warpFisheye(p): return p.flags
        case let .fixVignetteRadial(p): return p.flags
        case let .fixBadPixelsConstant(p): return p.flags
        case let .fixBadPixelsList(p): return p.flags
        case let .trimBounds(p): return p.flags
        case let .mapTable(p): return p.flags
        case let .mapPolynomial(p): return p.flags
        case let .gainMap(p): return p.flags
        case let .deltaPerRow(p), let .deltaPerColumn(p), let .scalePerRow(p), let .scalePerColumn(p): return p.flags
        case let .warpRectilinear2(p): return p.flags
        case let .unknown(_, _, flags, _): return flags
        }
    }

    /// The stored DNG version of the opcode.
    public var version: UInt32 {
        switch self {
        case let .warpRectilinear(p): return p.version
        case let .warpFisheye(p): return p.version
        case let .fixVignetteRadial(p): return p.version
        case let .fixBadPixelsConstant(p): return p.version
        case let .fixBadPixelsList(p): return p.version
        case let .trimBounds(p): return p.version
        case let .mapTable(p): return p.version
        case let .mapPolynomial(p): return p.version
        case let .gainMap(p): return p.version
        case let .deltaPerRow(p), let .deltaPerColumn(p), let .scalePerRow(p), let .scalePerColumn(p): return p.version
        case let .warpRectilinear2(p): return p.version
        case let .unknown(_, version, _, _): return version
        }
    }

    /// Flags bit 0: a reader that cannot apply this opcode may skip it.
    public var isOptional: Bool { flags & Self.flagOptional != 0 }
    /// Flags bit 1 ("SkipIfPreview"): the opcode may be skipped for preview-quality renders.
    /// Full-quality renders apply it (DNG 1.7 §7); see `OpcodeList.forPreview`.
    public var isPreviewOnly: Bool { flags & Self.flagSkipIfPreview != 0 }

    /// True for the opcodes that are a per-pixel function of (position, value).
    public var isPointwise: Bool {
        switch self {
        case .gainMap, .mapTable, .mapPolynomial, .deltaPerRow, .deltaPerColumn,
             .scalePerRow, .scalePerColumn, .fixVignetteRadial:
            return true
        case .unknown:
            return isOptional          // skipped, so it changes nothing
        default:
            return false
        }
    }
}
