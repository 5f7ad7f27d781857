/// A batch-level error (not a per-file failure); one line.
public enum BatchError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Bad arguments or recipe: exit status 2.
    case usage(String)
    /// The output directory or manifest cannot be used.
    case io(String)
    public var description: String {
        switch self {
        case .usage(let s), .io(let s): return s
        }
    }
}
