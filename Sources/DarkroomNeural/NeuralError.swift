/// Everything that can go wrong loading or running a neural model. Each case names the model file
/// (or the name given for in-memory bytes) and carries the evidence; `description` is one line.
public enum NeuralError: Error, CustomStringConvertible, Equatable {
    /// The model file could not be read at all.
    case unreadable(file: String, reason: String)
    /// The flatbuffer is not a well-formed TFLite model: `offset` is the byte position that failed.
    case malformed(file: String, offset: Int, reason: String)
    /// An operator this runtime does not execute (`name` is the TFLite builtin or custom name).
    case unsupportedOperator(file: String, index: Int, name: String)
    /// A tensor whose type, shape or data this runtime cannot use.
    case unsupportedTensor(file: String, tensor: String, reason: String)
    /// `run` was given the wrong number of floats.
    case inputSize(file: String, expected: Int, got: Int)
    /// An XNNPACK call failed (`status` is its `xnn_status` code).
    case runtime(file: String, call: String, status: Int)
    /// A model file is in none of the places `ModelLocator` looks.
    case modelNotFound(file: String, searched: [String])

    public var description: String {
        switch self {
        case let .unreadable(file, reason):
            return "\(file): cannot read the model: \(reason)"
        case let .malformed(file, offset, reason):
            return "\(file): not a valid TFLite model at byte \(offset): \(reason)"
        case let .unsupportedOperator(file, index, name):
            return "\(file): operator \(index) (\(name)) is not supported by Darkroom's neural runtime"
        case let .unsupportedTensor(file, tensor, reason):
            return "\(file): tensor '\(tensor)': \(reason)"
        case let .inputSize(file, expected, got):
            return "\(file): input has \(got) floats, the model needs \(expected)"
        case let .runtime(file, call, status):
            return "\(file): XNNPACK \(call) failed with status \(status)"
        case let .modelNotFound(file, searched):
            return "\(file): model not found (looked in \(searched.joined(separator: ", "))); run `make models`"
        }
    }
}
