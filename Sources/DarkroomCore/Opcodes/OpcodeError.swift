/// Why an opcode list could not be parsed, validated or applied. Every description is one line
/// naming the opcode (by its DNG specification name) and the reason.
public enum OpcodeError: Error, CustomStringConvertible, Equatable {
    /// The byte stream ended at `at` while `needed` more bytes were required.
    case truncated(opcode: String, at: Int, needed: Int)
    /// The opcode's declared parameter byte count does not match what its parameters need.
    case sizeMismatch(opcode: String, declared: Int, expected: Int)
    /// The list header claims more opcodes than the bytes can possibly hold.
    case countTooLarge(count: UInt32, bytes: Int)
    /// Bytes left over after the last opcode.
    case trailingBytes(count: Int)
    /// A parameter is out of its specified range (zero pitch, zero planes, non-finite value, …).
    case invalidParameter(opcode: String, reason: String)
    /// The opcode's area (or points, rectangles, bounds) does not fit the image it is applied to.
    case areaOutsideImage(opcode: String, area: String, width: Int, height: Int)
    /// The opcode addresses a plane the image does not have, or a plane count it cannot use.
    case planeOutOfRange(opcode: String, plane: Int, imagePlanes: Int)
    /// A non-optional opcode Darkroom cannot apply (unknown id, newer DNG version, wrong image kind).
    case unsupported(opcode: String, reason: String)
    /// The pixel buffer handed to an apply function does not match its stated size.
    case bufferMismatch(reason: String)

    public var description: String {
        switch self {
        case let .truncated(opcode, at, needed):
            return "\(opcode): opcode list truncated at byte \(at), \(needed) more bytes needed"
        case let .sizeMismatch(opcode, declared, expected):
            return "\(opcode): parameter byte count \(declared) does not match the \(expected) its parameters need"
        case let .countTooLarge(count, bytes):
            return "OpcodeList: header claims \(count) opcodes but only \(bytes) bytes are present"
        case let .trailingBytes(count):
            return "OpcodeList: \(count) unexpected bytes after the last opcode"
        case let .invalidParameter(opcode, reason):
            return "\(opcode): \(reason)"
        case let .areaOutsideImage(opcode, area, width, height):
            return "\(opcode): area \(area) lies outside the \(width)x\(height) image"
        case let .planeOutOfRange(opcode, plane, imagePlanes):
            return "\(opcode): plane \(plane) does not exist in a \(imagePlanes)-plane image"
        case let .unsupported(opcode, reason):
            return "\(opcode): cannot be applied: \(reason)"
        case let .bufferMismatch(reason):
            return "OpcodeList: pixel buffer mismatch: \(reason)"
        }
    }
}
