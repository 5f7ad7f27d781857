/// Why a supplied matte could not be used. Each message is one line naming the file and the reason.
public enum MatteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The PNG could not be read or decoded (`reason` is the PNG reader's message).
    case unreadable(file: String, reason: String)
    /// The matte's aspect ratio differs from the output's by more than `SuppliedMatte.aspectTolerance`.
    case aspectMismatch(file: String, matteWidth: Int, matteHeight: Int, outputWidth: Int, outputHeight: Int)
    /// The requested output size is not positive.
    case invalidOutputSize(file: String, width: Int, height: Int)

    public var description: String {
        switch self {
        case let .unreadable(f, r): return "\(f): cannot use as a matte: \(r)"
        case let .aspectMismatch(f, mw, mh, ow, oh):
            return "\(f): matte is \(mw)x\(mh) but the output is \(ow)x\(oh) (aspect ratios differ; crop or rotate the matte to match)"
        case let .invalidOutputSize(f, w, h): return "\(f): cannot fit a matte to an output of \(w)x\(h)"
        }
    }
}
