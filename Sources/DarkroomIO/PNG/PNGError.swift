/// Why a PNG could not be read. Each message is one line naming the file (when known) and the reason.
public enum PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case notPNG(file: String?)
    /// The data ended at byte `at`; libpng asked for `needed` more bytes.
    case truncated(file: String?, at: Int, needed: Int)
    case badCRC(file: String?, chunk: String)
    case missingChunk(file: String?, chunk: String)
    case unsupported(file: String?, reason: String)
    /// libpng refused the data; `reason` is its message (e.g. "IDAT: incorrect header check").
    case invalid(file: String?, reason: String)

    /// The same error, attributed to `file`.
    public func naming(_ file: String) -> PNGError {
        switch self {
        case .unreadable: return self
        case .notPNG: return .notPNG(file: file)
        case let .truncated(_, at, needed): return .truncated(file: file, at: at, needed: needed)
        case let .badCRC(_, chunk): return .badCRC(file: file, chunk: chunk)
        case let .missingChunk(_, chunk): return .missingChunk(file: file, chunk: chunk)
        case let .unsupported(_, reason): return .unsupported(file: file, reason: reason)
        case let .invalid(_, reason): return .invalid(file: file, reason: reason)
        }
    }

    public var description: String {
        func name(_ f: String?) -> String { f ?? "<PNG data>" }
        switch self {
        case let .unreadable(f, r): return "\(f): cannot read PNG: \(r)"
        case let .notPNG(f): return "\(name(f)): not a PNG (bad signature)"
        case let .truncated(f, at, n): return "\(name(f)): PNG truncated at byte \(at) (needed \(n) more bytes)"
        case let .badCRC(f, c): return "\(name(f)): PNG chunk \(c) has a bad CRC"
        case let .missingChunk(f, c): return "\(name(f)): PNG has no \(c) chunk"
        case let .unsupported(f, r): return "\(name(f)): unsupported PNG: \(r)"
        case let .invalid(f, r): return "\(name(f)): invalid PNG: \(r)"
        }
    }
}
