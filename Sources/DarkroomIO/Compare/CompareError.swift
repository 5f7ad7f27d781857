/// Why `darkroom compare` could not do part of its work; one line naming the file (or flag) and
/// the reason. Usage errors exit with 2, file failures with 1.
public enum CompareError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A bad flag value, with the flag.
    case usage(flag: String, reason: String)
    case reference(path: String, reason: String)
    case profile(path: String, reason: String)
    case file(path: String, reason: String)
    case chart(path: String, reason: String)
    case write(path: String, reason: String)
    /// A lower layer's message that already names the file (decode and profile errors).
    case named(String)
    /// An option file (`--profile`, `--reference`) that cannot be used: a usage error, found
    /// before any input is read. The message names the file.
    case option(String)

    public var description: String {
        switch self {
        case .usage(let flag, let reason): return "\(flag): \(reason)"
        case .reference(let path, let reason): return "\(path): unusable chart reference (\(reason))"
        case .profile(let path, let reason): return "\(path): \(reason)"
        case .file(let path, let reason): return "\(path): \(reason)"
        case .chart(let path, let reason): return "\(path): cannot measure the chart (\(reason))"
        case .write(let path, let reason): return "\(path): cannot write the report (\(reason))"
        case .named(let message), .option(let message): return message
        }
    }

    /// The process exit status this error calls for.
    public var exitCode: Int32 {
        switch self {
        case .usage, .option: return 2
        default: break
        }
        return 1
    }
}
