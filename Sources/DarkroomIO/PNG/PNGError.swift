/// Why a PNG could not be read. Each message is one line naming the file (when known) and the reason.
public enum PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case notPNG(file: String?)
    case truncated(file: String?, at: Int, needed: Int)
    case badCRC(file: String?, chunk: String, at: Int)
    case missingChunk(file: String?, chunk: String)
    case unsupported(file: String?, reason: String)
    case invalid(file: String?, reason: String)
    case inflateFailed(file: String?, zlibCode: Int32)

    /// The same error, attributed to `file`.
    public func naming(_ file: String) -> PNGError {
        switch self {
        case .unreadable: return self
        case .notPNG: return .notPNG(file: file)
        case let .truncated(_, at, needed): return .truncated(file: file, at: at, needed: needed)
        case let .badCRC(_, chunk, at): return .badCRC(file: file, chunk: chunk, at: at)
        case let .missingChunk(_, chunk): return .missingChunk(file: file, chunk: chunk)
        case let .unsupported(_, reason): return .unsupported(file: file, reason: reason)
        case let .invalid(_, reason): return .invalid(file: file, reason: reason)
        case let .inflateFailed(_, code): return .inflateFailed(file: file, zlibCode: code)
        }
    }

    public var description: String {
        func name(_ f: String?) -> String { f ?? "<PNG data>" }
        switch self {
        case let .unreadable(f, r): return "\(f): cannot read PNG: \(r)"
        case let .notPNG(f): return "\(name(f)): not a PNG (bad signature)"
        case let .truncated(f, at, n): return "\(name(f)): PNG truncated at byte \(at) (needed \(n) more bytes)"
        case let .badCRC(f, c, at): return "\(name(f)): PNG chunk \(c) at byte \(at) has a bad CRC"
        case let .missingChunk(f, c): return "\(name(f)): PNG has no \(c) chunk"
        case let .unsupported(f, r): return "\(name(f)): unsupported PNG: \(r)"
        case let .invalid(f, r): return "\(name(f)): invalid PNG: \(r)"
        case let .inflateFailed(f, code): return "\(name(f)): PNG image data does not inflate (zlib error \(code))"
        }
    }
}
