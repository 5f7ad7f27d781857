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
///
/// `.reference` is the look of the DNG SDK's reference renderer (`dng_validate`/`dng_render`):
/// the renderer runs `ReferenceLook` (exposure ramp, profile tables, the profile's tone curve or
/// `ACR3ToneCurve`, SDK clipping) instead of this type's stages; on its own, `apply` is the ACR3
/// curve on 0…1.
public struct ToneCurve: Sendable, Equatable {
    public enum Mode: String, Sendable, Codable, CaseIterable { case standard, linear, reference }

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
        if mode == .reference { return Float(ACR3ToneCurve.evaluate(Double(x >= 0 ? min(x, 1) : 0))) }
        var v = min(max(x, 0), headroom)
        if headroom > 1 { v = v * (1 + v * invHeadroom2) / (1 + v) }
        if let profileCurve { return profileCurve(v) }
        return (1 + shoulder) * v / (v + shoulder)
    }

    /// Applies the curve to an RGB triple, preserving hue (DNG SDK "RGB tone" construction).
    @inline(__always)
    public func applyRGB(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        if mode == .linear { return (apply(r), apply(g), apply(b)) }
        return Self.huePreserving(r, g, b, curve: apply)
    }

    /// The DNG SDK's "RGB tone" construction with any curve: the curve is applied to the largest
    /// and the smallest channel (negatives count as 0) and every channel is placed at the same
    /// relative position between them, so (mid − min) / (max − min), and with it the hue, is
    /// kept. Written without branches per channel ordering; the renderer calls it with its
    /// tabulated curve.
    @inline(__always)
    public static func huePreserving(_ r: Float, _ g: Float, _ b: Float,
                                     curve: (Float) -> Float) -> (Float, Float, Float) {
        let mx = max(r, max(g, b)), mn = max(min(r, min(g, b)), 0)
        let fmx = curve(mx), fmn = curve(mn)
        guard mx > mn else { return (fmx, fmx, fmx) }
        let k = (fmx - fmn) / (mx - mn)
        return (fmn + (max(r, 0) - mn) * k, fmn + (max(g, 0) - mn) * k, fmn + (max(b, 0) - mn) * k)
    }
}
