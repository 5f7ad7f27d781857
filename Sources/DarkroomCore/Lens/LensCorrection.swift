import Foundation

/// The lens correction resolved for one file: what was matched in the lens database, the shot
/// parameters used, which corrections apply (or why none does), and the model that applies them.
/// `DevelopPlan.lens` holds it; `TileRenderer` runs it (`LensResampler`).
public struct LensCorrection: Sendable {
    /// The database entries and shot parameters a correction was resolved from.
    public struct Match: Sendable, Equatable {
        /// Camera maker and model as the database names them, and its crop factor (sensor
        /// diagonal of 35 mm film / this sensor's).
        public var cameraMaker: String
        public var cameraModel: String
        public var cropFactor: Double
        /// Lens maker and model as the database names them.
        public var lensMaker: String
        public var lensModel: String
        /// Focal length in mm, aperture as an f-number, focus distance in metres.
        public var focalLength: Double
        public var aperture: Double?
        public var distanceMetres: Double
        /// True when the file gives no focus distance and `LensCorrection.defaultDistanceMetres` is used.
        public var distanceAssumed: Bool
        /// The database's distortion model for this lens (`poly3`, `poly5`, `ptlens`), if any.
        public var distortionModel: String?

        public init(cameraMaker: String, cameraModel: String, cropFactor: Double, lensMaker: String, lensModel: String,
                    focalLength: Double, aperture: Double?, distanceMetres: Double, distanceAssumed: Bool,
                    distortionModel: String?) {
            self.cameraMaker = cameraMaker; self.cameraModel = cameraModel; self.cropFactor = cropFactor
            self.lensMaker = lensMaker; self.lensModel = lensModel; self.focalLength = focalLength
            self.aperture = aperture; self.distanceMetres = distanceMetres; self.distanceAssumed = distanceAssumed
            self.distortionModel = distortionModel
        }
    }

    /// Focus distance used when the file does not give one, in metres (lensfun's "infinity").
    public static let defaultDistanceMetres = 1000.0

    /// The recipe's request.
    public var spec: LensCorrectionSpec
    /// What was matched (nil: nothing, see `reason`).
    public var match: Match?
    /// The corrections that run (empty: none).
    public var applied: Set<LensCorrectionKind>
    /// Requested corrections the database has no data for.
    public var unavailable: Set<LensCorrectionKind>
    /// Why nothing runs (nil when something does).
    public var reason: String?
    /// Scale of the geometric correction (lensfun's automatic scale: the corrected image fills
    /// the frame without reaching outside the source); 1 without one.
    public var scale: Double
    /// The per-pixel model (nil when nothing runs).
    public var modifier: (any LensModifier)?

    public init(spec: LensCorrectionSpec, match: Match?, applied: Set<LensCorrectionKind>,
                unavailable: Set<LensCorrectionKind> = [], reason: String?, scale: Double = 1,
                modifier: (any LensModifier)?) {
        self.spec = spec; self.match = match; self.applied = applied; self.unavailable = unavailable
        self.reason = reason; self.scale = scale; self.modifier = modifier
    }

    /// No correction, for `reason`.
    public static func none(_ spec: LensCorrectionSpec, reason: String, match: Match? = nil) -> LensCorrection {
        LensCorrection(spec: spec, match: match, applied: [], reason: reason, modifier: nil)
    }

    /// True when some correction runs.
    public var isActive: Bool { modifier != nil && !applied.isEmpty }
    /// True when pixels move (distortion or TCA): a resample after the demosaic.
    public var isGeometric: Bool { isActive && (applied.contains(.distortion) || applied.contains(.tca)) }
    /// True when the vignetting gain runs.
    public var correctsVignetting: Bool { isActive && applied.contains(.vignetting) }

    /// `darkroom explain`'s lines for the lens correction.
    public var explanation: [String] {
        var lines: [String] = []
        let head = "lens correction: \(spec.text)"
        guard let m = match else {
            lines.append("\(head) → none (\(reason ?? "no match"))")
            return lines
        }
        lines.append("\(head) → camera \(m.cameraModel) (crop factor \(format(m.cropFactor, 3))), lens \(m.lensModel) (lensfun database)")
        let aperture = m.aperture.map { "f/\(format($0, 1))" } ?? "aperture unknown"
        lines.append("  \(format(m.focalLength, 1)) mm, \(aperture), focus \(format(m.distanceMetres, 2)) m\(m.distanceAssumed ? " (not in the file: assumed)" : " (XMP ApproximateFocusDistance)")")
        if isActive {
            let kinds = applied.sorted().map { k -> String in
                k == .distortion ? "distortion (\(m.distortionModel ?? "model"))" : k.rawValue
            }
            var text = "  corrects " + kinds.joined(separator: ", ")
            if !unavailable.isEmpty { text += "; not in the database: " + unavailable.sorted().map(\.rawValue).joined(separator: ", ") }
            lines.append(text)
            if correctsVignetting {
                lines.append("  vignetting: gain 1/(1 + k1 r² + k2 r⁴ + k3 r⁶) on the demosaiced, white-balanced camera RGB of the whole image")
            }
            if isGeometric {
                lines.append("  distortion/TCA: one bicubic resample of the demosaiced camera RGB, per channel source positions from lensfun, scale \(format(scale, 4))")
            }
        } else {
            lines.append("  corrects nothing (\(reason ?? "no data"))")
        }
        return lines
    }

    private func format(_ v: Double, _ digits: Int) -> String {
        var s = String(format: "%.\(digits)f", v)
        if s.contains(".") { while s.hasSuffix("0") { s.removeLast() }; if s.hasSuffix(".") { s.removeLast() } }
        return s
    }
}
