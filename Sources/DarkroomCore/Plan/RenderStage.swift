/// The stages of a render, in the order they run (DNG specification order). The plan
/// (`DevelopPlan`) resolves a number for each; the renderer (`TileRenderer`) runs them per tile,
/// stages 6–9 fused in `OutputTransform`; `darkroom explain` prints one line per stage, numbered
/// and named from this list.
///
/// The DNG SDK's stage dumps (`--stage 1|2|3`, as `dng_validate -1/-2/-3`) cut the same flow
/// elsewhere: its stage 1 is the stored values, its stage 2 the image after `opcodeList2` (scaled
/// to 0…65535, before white balance), its stage 3 the demosaiced camera RGB after `opcodeList3`,
/// not white-balanced.
public enum RenderStage: Int, CaseIterable, Sendable {
    /// Black subtraction and white scaling per CFA site (BlackLevel, deltas, WhiteLevel).
    case linearize = 1
    /// OpcodeList2 (pointwise per tile, or the whole image).
    case opcodeList2
    /// Multiply each CFA colour by 1 / camera neutral, clip at 1.
    case whiteBalance
    /// CFA → three planes of balanced camera RGB.
    case demosaic
    /// OpcodeList3 (pointwise per tile, or the whole image).
    case opcodeList3
    /// Balanced camera → output linear RGB (the DNG colour model), with exposure; or the
    /// reference look's camera → linear ProPhoto and its stages.
    case colour
    /// Out-of-gamut colours brought inside the output space.
    case gamut
    /// The tone curve (or the reference look's).
    case tone
    /// Transfer curve of the output space, quantisation, crop and orientation.
    case encode

    /// The stage's number in `explain` and the comments (1…9).
    public var number: Int { rawValue }

    /// Its name as `explain` prints it.
    public var title: String {
        switch self {
        case .linearize: "linearise"
        case .opcodeList2: "OpcodeList2"
        case .whiteBalance: "white balance"
        case .demosaic: "demosaic"
        case .opcodeList3: "OpcodeList3"
        case .colour: "colour"
        case .gamut: "gamut"
        case .tone: "tone"
        case .encode: "encode"
        }
    }

    /// "N title", the start of the stage's `explain` line.
    public var label: String { "\(number) \(title)" }

    /// "N–M", the numbers of a run of stages done together (the reference look: colour…tone).
    public static func span(_ first: RenderStage, _ last: RenderStage) -> String { "\(first.number)-\(last.number)" }
}
