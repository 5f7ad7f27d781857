import DarkroomCore
/// Why a file could not be decoded. Every message is one line that names the file and the reason.
public enum DecodeError: Error, Sendable, CustomStringConvertible, Equatable {
    case fileNotFound(path: String)
    case unreadable(path: String, reason: String)
    case notRaw(path: String, detail: String)
    case unsupported(path: String, reason: String)
    case truncated(path: String, detail: String)
    case corrupt(path: String, detail: String)
    case invalidParameters(path: String, reason: String)
    /// The image the file declares is larger than its size makes plausible, or than the memory
    /// limit allows (`DecodeBudget`); refused before anything is allocated.
    case tooLarge(path: String, detail: String)

    public var description: String {
        switch self {
        case .fileNotFound(let p): return "\(p): no such file"
        case .unreadable(let p, let r): return "\(p): cannot read file (\(r))"
        case .notRaw(let p, let d): return "\(p): not a RAW or DNG file (\(d))"
        case .unsupported(let p, let r): return "\(p): unsupported RAW format (\(r))"
        case .truncated(let p, let d): return "\(p): file is truncated (\(d))"
        case .corrupt(let p, let d): return "\(p): corrupt RAW data (\(d))"
        case .invalidParameters(let p, let r): return "\(p): \(r)"
        case .tooLarge(let p, let d): return "\(p): image too large (\(d))"
        }
    }

    public var path: String {
        switch self {
        case .fileNotFound(let p), .unreadable(let p, _), .notRaw(let p, _), .unsupported(let p, _),
             .truncated(let p, _), .corrupt(let p, _), .invalidParameters(let p, _), .tooLarge(let p, _): return p
        }
    }
}

extension DecodeError {
    /// A short machine-readable category for reports (`FailureCategory` raw values).
    public var category: String {
        switch self {
        case .fileNotFound: return "not-found"
        case .unreadable: return "unreadable"
        case .notRaw: return "not-raw"
        case .unsupported: return "unsupported"
        case .truncated: return "truncated"
        case .corrupt: return "corrupt"
        case .invalidParameters: return "invalid-parameters"
        case .tooLarge: return "too-large"
        }
    }
}
