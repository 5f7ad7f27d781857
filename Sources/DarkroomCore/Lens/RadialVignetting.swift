/// A vignetting correction gain that depends only on the distance from the lens centre: lensfun's
/// pa model (Pablo d'Angelo's, as in Hugin), gain = 1 / (1 + k1 r² + k2 r⁴ + k3 r⁶).
///
/// r is in lensfun's vignetting units (1 = half the diagonal of the calibration sensor, mapped
/// onto this image by the crop factors and aspect ratios): for the pixel at (x, y) (pixel indices
/// of the uncorrected image) its coordinates are (x · `scale` − `offsetX`, y · `scale` − `offsetY`).
/// `LensfunModifier` derives the numbers from lensfun's own and checks them against lensfun's
/// gains before it hands one out; `LensResampler.correctVignetting(planes:)` evaluates it eight
/// pixels at a time instead of asking lensfun pixel by pixel.
public struct RadialVignetting: Sendable, Equatable {
    /// The model's coefficients k1, k2, k3.
    public var k1: Float, k2: Float, k3: Float
    /// Vignetting units per pixel.
    public var scale: Float
    /// The lens centre's offsets in vignetting units (x · scale − offsetX is 0 at the centre).
    public var offsetX: Float, offsetY: Float

    public init(k1: Float, k2: Float, k3: Float, scale: Float, offsetX: Float, offsetY: Float) {
        self.k1 = k1; self.k2 = k2; self.k3 = k3
        self.scale = scale; self.offsetX = offsetX; self.offsetY = offsetY
    }

    /// The gains of eight pixels (x0 + i, y), i in 0..<8: pixel (x, y) at (u, v) = (x · scale −
    /// offsetX, y · scale − offsetY), r² = u² + v², gain 1 / (1 + r²(k1 + r²(k2 + r² k3))).
    @inline(__always)
    public func gains(x0: Int, y: Int) -> SIMD8<Float> {
        let xs = SIMD8<Float>(repeating: Float(x0)) + SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let v = Float(y) * scale - offsetY
        let u = xs * scale - offsetX
        let r2 = u * u + v * v
        return 1 / (1 + r2 * (k1 + r2 * (k2 + r2 * k3)))
    }

    /// Multiplies the `count` floats at each of `red`, `green` and `blue` (one row of three
    /// planes: pixels (x0 + i, y)) by their gains, eight pixels at a time (the last few from one
    /// more `gains`, so every pixel's gain is a lane's whatever x0).
    @inline(__always)
    public func apply(red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>,
                      x0: Int, y: Int, count: Int) {
        typealias V = SIMD8<Float>
        let r = UnsafeMutableRawPointer(red), g = UnsafeMutableRawPointer(green), b = UnsafeMutableRawPointer(blue)
        var i = 0
        while i + 8 <= count {
            let gain = gains(x0: x0 + i, y: y)
            let o = i * MemoryLayout<Float>.size
            (r + o).storeBytes(of: (r + o).loadUnaligned(as: V.self) * gain, as: V.self)
            (g + o).storeBytes(of: (g + o).loadUnaligned(as: V.self) * gain, as: V.self)
            (b + o).storeBytes(of: (b + o).loadUnaligned(as: V.self) * gain, as: V.self)
            i += 8
        }
        if i < count {
            let gain = gains(x0: x0 + i, y: y)
            for k in 0..<(count - i) {
                red[i + k] *= gain[k]; green[i + k] *= gain[k]; blue[i + k] *= gain[k]
            }
        }
    }
}
