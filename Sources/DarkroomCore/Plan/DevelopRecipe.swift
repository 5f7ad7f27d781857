/// Everything the user chooses about a render. Every tunable lives here with a documented
/// default; the plan (`DevelopPlan`) resolves it against a file's metadata.
public struct DevelopRecipe: Sendable, Equatable, Codable {
    /// Output colour space and encoding (`--color-space`). Default sRGB.
    public var colorSpace: OutputColorSpace = .srgb
    /// Demosaic algorithm (`--demosaic`). Default `DemosaicAlgorithm.default`.
    public var demosaic: DemosaicAlgorithm = .default
    /// White balance (`--wb`). Default: the file's as-shot white (AsShotNeutral / AsShotWhiteXY).
    public var whiteBalance: WhiteBalanceSpec = .asShot
    /// A white-balance request that needs the image to resolve (`--wb auto|daylight|…`,
    /// `--wb-rect`, `--wb-gains`); when set it replaces `whiteBalance`. Default nil.
    public var whiteBalanceRequest: WhiteBalanceRequest?
    /// An external camera profile (`--profile FILE.dcp`). Default nil: the file's own profile, or a
    /// `.dcp` in `Profiles/` matching its UniqueCameraModel.
    public var profilePath: String?
    /// Pick an embedded profile by ProfileName (`--profile-name`). Default nil.
    public var profileName: String?
    /// Apply the profile's HueSatMap/LookTable and ProfileToneCurve (`--no-profile-look`). Default true.
    public var applyProfileLook: Bool = true
    /// User exposure in stops, added to BaselineExposure(+Offset) (`--exposure`). Default 0.
    public var exposureStops: Double = 0
    /// Whether BaselineExposure (+ the profile's BaselineExposureOffset) is applied. Default true.
    public var applyBaselineExposure: Bool = true
    /// Look and tone curve (`--look`, `--tone`): `.reference` (the DNG SDK renderer's look,
    /// `ReferenceLook`; `--look reference`), `.standard` (Darkroom's curve, documented in
    /// `ToneCurve`; `--look darkroom`) or `.linear` (colorimetric: no curve, no look). Default
    /// `.reference`: the picture Adobe software shows for a DNG.
    public var tone: ToneCurve.Mode = .reference
    /// Shoulder b of the standard tone curve y = (1 + b)·x / (x + b) (`--tone-shoulder`; see
    /// `ToneCurve`): smaller values compress highlights harder and lift shadows more, larger
    /// ones approach the linear render. Not used by `.linear` or a profile's ProfileToneCurve.
    /// Default 2.0.
    public var toneShoulder: Double = 2.0
    /// Gamut mapping into the output space (`--gamut`): `.preserveHue` desaturates out-of-gamut
    /// (negative) components toward the pixel's luminance, keeping hue and Y; `.clip` clips each
    /// channel (for colour scientists who want plain clipping).
    public var gamut: GamutMode = .preserveHue
    /// Clipped highlights (`--highlights`): `.reconstruct` rebuilds clipped channels from the
    /// unclipped ones and keeps the hue (`HighlightRecovery`); `.clip` runs them to white as the
    /// DNG SDK does. Default `.reconstruct`; images without clipped samples render the same either way.
    public var highlights: HighlightMode = .reconstruct
    /// Noise reduction (`--noise-reduction`, `NoiseReduction`): `.auto` uses the file's
    /// NoiseProfile, else the noise estimated from the image (`NoiseModel.measure`; only when its
    /// colours agree), at strength 1, and does nothing where the noise is invisible; `.off`; or explicit luminance/chroma strengths. Default `.auto`.
    public var noiseReduction: NoiseReductionSpec = .auto
    /// Capture sharpening (`--sharpen`, `CaptureSharpening`): a noise-gated unsharp mask on
    /// luminance; `.auto` = amount 0.4 at radius 1. Default `.auto`.
    public var sharpen: SharpenSpec = .auto
    /// Lens corrections from the lensfun database (`--lens`, `LensCorrection`):
    /// `.auto` corrects distortion, TCA and vignetting when the database has the camera and
    /// lens (not for a DNG that already carries correction opcodes); `.off`; or a list. Default `.auto`.
    public var lensCorrection: LensCorrectionSpec = .auto
    /// Output bits per sample, 8 or 16 (`--bit-depth`). JPEG is always 8.
    public var bitsPerSample: Int = 8
    /// Dither 8-bit output by unbiased random rounding (a fixed hash of the pixel position, so
    /// output stays deterministic): flat areas keep their exact mean through quantisation and
    /// JPEG, and smooth gradients do not band (`--no-dither`). Default true.
    public var dither: Bool = true
    /// Apply DefaultCrop (`--no-crop` turns it off). Default true.
    public var applyDefaultCrop: Bool = true
    /// Apply the file's Orientation to the pixels (outputs are written with Orientation 1). Default true.
    public var applyOrientation: Bool = true
    /// Apply OpcodeList1/2/3 at all (`--opcodes none` turns them off). Default true.
    public var applyOpcodes: Bool = true
    /// Which opcode lists to apply (`--opcodes list1,list3`). Default all three.
    public var opcodeLists: Set<Int> = [1, 2, 3]
    /// Long side of the embedded thumbnail in pixels; 0 = none. Default 320.
    public var thumbnailSize: Int = 320
    /// Output tile edge in pixels (`--tile-size`); changes speed, never pixels. Default 256.
    public var tileSize: Int = 256
    /// Worker threads for one image (`--threads`); 0 = one per core. Changes speed, never pixels.
    public var threads: Int = 0

    public init() {}
}

/// How colours outside the output gamut are brought inside it.
public enum GamutMode: String, Sendable, Codable, CaseIterable {
    case preserveHue = "preserve-hue"
    case clip
}

extension DevelopRecipe {
    /// Sets white balance from a request: plain whites (as-shot, KELVIN[,TINT], xy) directly,
    /// image-dependent ones (auto, presets, rect, gains) as a request the plan resolves.
    public mutating func setWhiteBalance(_ request: WhiteBalanceRequest) {
        switch request {
        case .asShot: whiteBalance = .asShot; whiteBalanceRequest = nil
        case .temperature(let k, let t): whiteBalance = .temperature(kelvin: k, tint: t); whiteBalanceRequest = nil
        case .whiteXY(let c): whiteBalance = .whiteXY(c); whiteBalanceRequest = nil
        default: whiteBalanceRequest = request
        }
    }

    /// The white balance in recipe spelling (`WhiteBalanceRequest.parse` reads it back).
    public var whiteBalanceText: String { whiteBalanceRequest?.text ?? whiteBalance.text }

    /// Which DNG opcode lists run: `all` (also true/yes), `none` (also false/no) or a list like
    /// `list1,list3`.
    public struct OpcodeSelection: Sendable, Equatable {
        public var apply: Bool
        public var lists: Set<Int>

        public init(apply: Bool, lists: Set<Int>) { self.apply = apply; self.lists = lists }

        public struct ParseError: Error, Sendable, CustomStringConvertible {
            public var description: String
        }

        public init(parsing text: String) throws(ParseError) {
            let t = text.lowercased().replacingOccurrences(of: " ", with: "")
            switch t {
            case "all", "true", "yes": self.init(apply: true, lists: [1, 2, 3])
            case "none", "false", "no": self.init(apply: false, lists: [1, 2, 3])
            default:
                var lists = Set<Int>()
                for part in t.split(separator: ",") {
                    guard part.hasPrefix("list"), let n = Int(part.dropFirst(4)), (1...3).contains(n) else {
                        throw ParseError(description: "must be all, none, or a list of list1, list2, list3 (got '\(text)')")
                    }
                    lists.insert(n)
                }
                guard !lists.isEmpty else { throw ParseError(description: "empty list") }
                self.init(apply: true, lists: lists)
            }
        }

        /// `all`, `none` or `listA,listB` (sorted).
        public var text: String {
            !apply ? "none" : lists == [1, 2, 3] ? "all" : lists.sorted().map { "list\($0)" }.joined(separator: ",")
        }
    }
}
