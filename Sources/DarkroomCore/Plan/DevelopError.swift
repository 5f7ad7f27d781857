/// Why a decoded image could not be developed. One line, naming the reason.
public enum DevelopError: Error, Sendable, CustomStringConvertible, Equatable {
    case imageTooSmall(width: Int, height: Int, minimum: Int)
    case badLevels(String)
    case colorModel(String)
    case opcode(String)
    case invalidRecipe(String)

    public var description: String {
        switch self {
        case .imageTooSmall(let w, let h, let m): return "image is \(w)x\(h); at least \(m)x\(m) pixels are needed"
        case .badLevels(let s): return "invalid black/white levels: \(s)"
        case .colorModel(let s): return "colour model: \(s)"
        case .opcode(let s): return "opcode list: \(s)"
        case .invalidRecipe(let s): return "invalid recipe: \(s)"
        }
    }
}
