import DarkroomCore
/// Why an image could not be encoded (or an encoded file inspected). Every message is one line
/// naming the format and the reason.
public enum EncodeError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The `RenderedImage` is not something this encoder accepts (size, bit depth, buffer length).
    case invalidImage(format: String, reason: String)
    /// An option is out of range (quality, bit depth, …).
    case invalidOption(format: String, reason: String)
    /// The C library reported an error.
    case library(format: String, call: String, message: String)
    /// A metadata block does not fit its container (e.g. EXIF larger than one JPEG APP1 segment).
    case metadataTooLarge(format: String, what: String, bytes: Int, limit: Int)
    /// Our own container edit (ISOBMFF / MPF) met a structure it cannot handle.
    case container(format: String, reason: String)
    /// `OutputInspector` was given bytes it cannot parse.
    case unreadable(format: String, reason: String)

    public var description: String {
        switch self {
        case .invalidImage(let f, let r): return "\(f) encode: invalid image (\(r))"
        case .invalidOption(let f, let r): return "\(f) encode: invalid option (\(r))"
        case .library(let f, let c, let m): return "\(f) encode: \(c) failed: \(m)"
        case .metadataTooLarge(let f, let w, let b, let l):
            return "\(f) encode: \(w) is \(b) bytes, more than the \(l)-byte limit"
        case .container(let f, let r): return "\(f) container: \(r)"
        case .unreadable(let f, let r): return "\(f) inspect: \(r)"
        }
    }
}
