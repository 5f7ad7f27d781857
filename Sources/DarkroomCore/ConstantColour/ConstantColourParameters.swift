/// The tunables of the constant-colour method (`ConstantColourSolver`), each with its default
/// and unit. Nothing else in the method is tuned.
public struct ConstantColourParameters: Sendable, Equatable, Codable {
    /// Largest frame-to-frame shift searched by the global registration, pixels (0: none).
    public var maxShift: Int = 16
    /// Half-size of the box (pixels; the box is 2r + 1 wide) over which the per-channel
    /// flash-only / ambient ratio is averaged before it corrects the ambient frame. The ratio
    /// carries the illumination only (the reflectance cancels), so it may be smoothed; the
    /// ambient frame keeps full resolution.
    public var ratioRadius: Int = 4
    /// Half-size of the box (pixels) that defines a pixel's neighbourhood for the flash-shadow and
    /// specular masks.
    public var maskRadius: Int = 15
    /// Flash / ambient luminance ratio at which the ratio term of the confidence is 0.5
    /// (term = ρ / (ρ + ρ½)).
    public var halfConfidenceRatio: Double = 0.5
    /// Relative uncertainty of the ambient light's share of the flash frame, k·A (fraction, 1σ):
    /// what the exposure metadata cannot know — shutter times and ISOs recorded as nominal
    /// third-stop values (1/60 s for 2⁻⁶ s is 4 % off), mains flicker of fluorescent and LED lamps
    /// between two short exposures, aperture repeatability. Each channel's flash-only signal D̄_c
    /// is off by up to this × k·Ā_c, the same sign in every channel; so the colour error it causes
    /// grows as the flash/ambient ratio falls and as the ambient light's colour departs from the flash's.
    public var ambientScaleUncertainty: Double = 0.05
    /// Predicted colour error (ΔE2000, luminance matched) at which the error term of the
    /// confidence is 0.5: term = 1 / (1 + (ΔE_pred / ΔE½)²). Default 2, the accuracy target of
    /// issue 17 (a difference most observers see side by side).
    public var halfConfidenceDeltaE: Double = 2
    /// Linear value (fraction of the white level, stage 2) at or above which a CFA sample counts
    /// as clipped; clipped samples zero the confidence of their 3×3 neighbourhood.
    public var clipLevel: Double = 0.99
    /// A pixel is in a flash shadow when its (3×3) flash / ambient ratio is below this fraction of
    /// its neighbourhood's mean ratio.
    public var shadowFraction: Double = 0.25
    /// A pixel is a flash specular highlight when its (3×3) flash / ambient ratio is above this
    /// multiple of its neighbourhood's mean ratio.
    public var specularFactor: Double = 3
    /// Scale (natural-log units) of the registration term: term = exp(−(d / scale)²), d = |ln ρ₃ₓ₃ −
    /// ln ρ_box| — the ratio image is free of reflectance, so local structure in it is
    /// misregistration (or a shadow / highlight edge).
    public var registrationScale: Double = 0.3
    /// Gaussian σ of the centre-weighted mean confidence, as a fraction of the half-width and
    /// half-height (an elliptical kernel centred on the frame).
    public var centreSigma: Double = 0.5
    public init() {}
}
