/// The tone curve applied to scene-linear output RGB before the transfer function.
///
/// `.standard` is Darkroom's documented default: identity up to the knee `k = 0.55` (scene-linear,
/// 1.0 = diffuse white at the sensor's clipping point after exposure), then a rational shoulder
/// that keeps slope 1 at the knee and reaches display white at `whitePoint = 2.0` (one stop of
/// highlight headroom, so BaselineExposure boosts and overexposed skies roll off instead of
/// clipping hard):
///
///     t = (x - k) / (1 - k),  w = (whitePoint - k) / (1 - k)
///     y = k + (1 - k) · t · (1 + t / w²) / (1 + t)            for x > k
///
/// It is applied hue-preservingly with the "RGB tone" construction of the DNG SDK's reference
/// renderer: the curve is applied to the largest and smallest channel and the middle channel is
/// interpolated so that the ratio (mid - min) / (max - min), and therefore the hue, is kept.
/// `.linear` applies nothing (a pure colorimetric render; values above 1 clip).
public struct ToneCurve: Sendable, Equatable {
    public enum Mode: String, Sendable, Codable, CaseIterable { case standard, linear }

    public let mode: Mode
    public let knee: Float
    public let whitePoint: Float
    private let w2: Float

    public init(mode: Mode, knee: Float = 0.55, whitePoint: Float = 2.0) {
        self.mode = mode
        self.knee = knee
        self.whitePoint = whitePoint
        let w = (whitePoint - knee) / (1 - knee)
        self.w2 = w * w
    }

    /// The curve for one channel value (scene-linear in, display-linear out, clipped to 0…1).
    @inline(__always)
    public func apply(_ x: Float) -> Float {
        if mode == .linear { return min(max(x, 0), 1) }
        if x <= knee { return max(x, 0) }
        if x >= whitePoint { return 1 }
        let t = (x - knee) / (1 - knee)
        return knee + (1 - knee) * t * (1 + t / w2) / (1 + t)
    }

    /// Applies the curve to an RGB triple, preserving hue (DNG SDK "RGB tone" construction).
    @inline(__always)
    public func applyRGB(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        if mode == .linear { return (apply(r), apply(g), apply(b)) }
        // Largest / smallest channel through the curve, the middle one by interpolation.
        @inline(__always) func mid(_ lo: Float, _ hi: Float, _ m: Float, _ tlo: Float, _ thi: Float) -> Float {
            hi > lo ? tlo + (thi - tlo) * (m - lo) / (hi - lo) : tlo
        }
        if r >= g {
            if g >= b {          // r ≥ g ≥ b
                let rr = apply(r), bb = apply(b)
                return (rr, mid(b, r, g, bb, rr), bb)
            } else if b > r {    // b > r ≥ g
                let bb = apply(b), gg = apply(g)
                return (mid(g, b, r, gg, bb), gg, bb)
            } else {             // r ≥ b > g
                let rr = apply(r), gg = apply(g)
                return (rr, gg, mid(g, r, b, gg, rr))
            }
        } else {
            if r >= b {          // g > r ≥ b
                let gg = apply(g), bb = apply(b)
                return (mid(b, g, r, bb, gg), gg, bb)
            } else if b > g {    // b > g > r
                let bb = apply(b), rr = apply(r)
                return (rr, mid(r, b, g, rr, bb), bb)
            } else {             // g ≥ b > r
                let gg = apply(g), rr = apply(r)
                return (rr, gg, mid(r, g, b, rr, gg))
            }
        }
    }
}
