/// One frame of a flash / no-flash pair, linearised up to camera RGB (DNG stage 3: black and
/// white levels, LinearizationTable, OpcodeList1–3 applied, demosaiced, not white-balanced).
public struct ConstantColourFrame: Sendable {
    public var width: Int
    public var height: Int
    /// Camera-native RGB, planar (all red, then green, then blue), linear, 1.0 = the white level.
    public var rgb: [Float]
    /// 1 where a CFA sample of this pixel's 3×3 neighbourhood reached `clipLevel` (stage 2), else 0.
    public var clipped: [UInt8]
    /// `NoiseProfile` (DNG 1.7 tag 51041) per colour plane: the variance of a normalised value x
    /// (0…1 of the white level) is `scale · x + offset`.
    public var noise: [(scale: Double, offset: Double)]

    public init(width: Int, height: Int, rgb: [Float], clipped: [UInt8], noise: [(scale: Double, offset: Double)]) {
        precondition(rgb.count == 3 * width * height && clipped.count == width * height && noise.count == 3,
                     "ConstantColourFrame: buffer sizes")
        self.width = width; self.height = height; self.rgb = rgb; self.clipped = clipped; self.noise = noise
    }

    /// The variance model assumed when a file has no NoiseProfile: a 4000 e⁻ full well (scale
    /// 1/4000) and a read noise of 1/2000 of the white level (offset 2.5·10⁻⁷).
    public static let assumedNoise: [(scale: Double, offset: Double)] = Array(repeating: (1.0 / 4000, 2.5e-7), count: 3)

    /// The NoiseProfile tag's values as per-plane pairs: 2 values (all planes) or 6 (one pair per
    /// plane), all finite and non-negative with a positive scale; otherwise nil.
    public static func noise(fromProfile values: [Double]?) -> [(scale: Double, offset: Double)]? {
        guard let v = values, v.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        if v.count == 2, v[0] > 0 { return Array(repeating: (v[0], v[1]), count: 3) }
        if v.count == 6, v[0] > 0, v[2] > 0, v[4] > 0 { return [(v[0], v[1]), (v[2], v[3]), (v[4], v[5])] }
        return nil
    }
}
