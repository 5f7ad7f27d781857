/// Decoded stored samples of a DNG raw IFD whose pixel type may be floating point (JPEG XL and
/// floating-point DNGs), row-major with the samples of a pixel interleaved, before they become a
/// `RawImage` (`FloatDNGDecoder.quantise`).
enum DNGSamples: Sendable {
    /// The DNG SDK's pixel types (`dng_ifd::PixelType`) the decoders produce.
    enum Kind: Sendable, Equatable, CustomStringConvertible {
        case uint8, uint16, float
        var description: String {
            switch self {
            case .uint8: return "8-bit integer"
            case .uint16: return "16-bit integer"
            case .float: return "float"
            }
        }
    }

    /// 8- or 16-bit unsigned integers (8-bit values widened).
    case integer([UInt16])
    /// 32-bit floats (16- and 24-bit floats widened exactly).
    case float([Float])

    var count: Int {
        switch self {
        case .integer(let p): return p.count
        case .float(let p): return p.count
        }
    }
}
