/// The tone curve applied to scene-linear output RGB before the transfer function.
///
/// `.standard` is Darkroom's documented default, a rational highlight-compressing curve
///
///     y = (1 + b) · x / (x + b),   b = `shoulder` = 2.0
///
/// It maps 0 → 0 and 1 → 1 (the sensor's clipping point stays display white), has slope
/// (1 + b) / b = 1.5 in the shadows (mid-grey 0.18 → 0.248, about +0.46 stop, as camera and raw
/// converter default renderings brighten mid-tones) and slope b / (1 + b) = 0.67 at white (a soft
/// shoulder instead of a hard clip). Values above 1 clip. It is applied hue-preservingly with the
/// "RGB tone" construction of the DNG SDK reference renderer: the curve is applied to the largest
/// and smallest channel and the middle channel is interpolated so that the ratio
/// (mid − min) / (max − min), and therefore the hue, is kept.
///
/// Highlight headroom: when exposure (BaselineExposure + user stops) lifts the sensor's clipping
/// point to `headroom` = 2^stops > 1, values in 0…headroom are first compressed back into 0…1 by
/// the extended-Reinhard curve g(x) = x · (1 + x / headroom²) / (1 + x) (slope 1 at black,
/// g(headroom) = 1; identity when headroom = 1), so brightened files keep their highlights
/// instead of clipping; the curve above is then applied to g(x).
///
/// When the camera profile carries a ProfileToneCurve it replaces the rational curve (after the
/// headroom compression), as raw converters use a profile's own curve instead of their default.
///
/// `.linear` applies nothing (a pure colorimetric render; values above 1 clip).
public struct ToneCurve: Sendable, Equatable {
    public enum Mode: String, Sendable, Codable, CaseIterable { case standard, linear }

    public let mode: Mode
    public let shoulder: Float
    /// Scene value that maps to display white (≥ 1).
    public let headroom: Float
    private let invHeadroom2: Float

    /// A camera profile's ProfileToneCurve, used instead of the rational curve in `.standard` mode.
    public let profileCurve: ToneCurveFunction?

    public init(mode: Mode, shoulder: Float = 2.0, headroom: Float = 1, profileCurve: ToneCurveFunction? = nil) {
        self.mode = mode
        self.profileCurve = profileCurve
        self.shoulder = shoulder
        self.headroom = max(headroom, 1)
        self.invHeadroom2 = 1 / (self.headroom * self.headroom)
    }

    /// The curve for one channel value (scene-linear in, display-linear out, clipped to 0…1).
    @inline(__always)
    public func apply(_ x: Float) -> Float {
        if mode == .linear { return min(max(x, 0), 1) }
        var v = min(max(x, 0), headroom)
        if headroom > 1 { v = v * (1 + v * invHeadroom2) / (1 + v) }
        if let profileCurve { return profileCurve(v) }
        return (1 + shoulder) * v / (v + shoulder)
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
