import DarkroomCore
/// TIFF 6.0 field types (plus IFD, type 13, from the TIFF technical notes).
public enum TIFFFieldType: UInt16, Sendable, CaseIterable {
    case byte = 1, ascii = 2, short = 3, long = 4, rational = 5
    case sbyte = 6, undefined = 7, sshort = 8, slong = 9, srational = 10
    case float = 11, double = 12, ifd = 13

    /// Bytes per value.
    public var size: Int {
        switch self {
        case .byte, .ascii, .sbyte, .undefined: return 1
        case .short, .sshort: return 2
        case .long, .slong, .float, .ifd: return 4
        case .rational, .srational, .double: return 8
        }
    }

    public var isInteger: Bool {
        switch self {
        case .byte, .short, .long, .sbyte, .sshort, .slong, .ifd: return true
        default: return false
        }
    }
}

/// A TIFF RATIONAL or SRATIONAL value.
public struct TIFFRational: Sendable, Equatable, Hashable {
    public var numerator: Int64
    public var denominator: Int64
    public init(_ numerator: Int64, _ denominator: Int64) {
        self.numerator = numerator; self.denominator = denominator
    }
    /// numerator / denominator, or nil when the denominator is zero.
    public var value: Double? { denominator == 0 ? nil : Double(numerator) / Double(denominator) }
}
