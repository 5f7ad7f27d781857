/// The kind of an auxiliary (matte) plane and the URN that names it in HEIF `auxC` boxes and
/// in the XMP of JPEG MPF secondary images.
///
/// Apple's URNs name planes made by segmentation (WWDC19 225). Darkroom writes them for planes a
/// user supplies (`--matte skin=FILE.png`) and for the planes it computes by neural segmentation
/// (`--mattes portrait,skin,teeth`: MediaPipe's person, face and Face Mesh models, DarkroomNeural's
/// `SemanticPlanes`). Planes computed from colour alone or with no Apple counterpart carry
/// Darkroom's own `urn:org:darkroom:aux:` URNs, so Apple software never mistakes a heuristic for
/// segmentation.
public enum MatteKind: String, Sendable, Codable, CaseIterable {
    /// The person matte (segmentation refined by a guided filter); computed only when a face is found.
    case portraitEffects = "portrait"
    /// Apple's semantic planes. `skin` and `teeth` are computed by segmentation; `hair`, `sky` and
    /// `glasses` can only be supplied as files (no shipped model with a usable licence).
    case skin, hair, teeth, sky, glasses
    /// The lips (Face Mesh's lip contours): Darkroom's own URN, Apple has no lips matte.
    case lips
    /// Darkroom's own computed planes.
    case gamut, clipping, confidence
    /// The colorimetric skin likelihood (`MatteBuilder.skin`): colour only, not segmentation.
    case skinColor = "skin-color"
    /// The per-pixel confidence of `darkroom constant-colour` (255 = full confidence).
    case constantColourConfidence = "constantcolourconfidence"

    /// The kinds computed by neural segmentation (DarkroomNeural's semantic mattes).
    public static let semanticKinds: Set<MatteKind> = [.portraitEffects, .skin, .teeth, .lips]

    public var urn: String {
        switch self {
        case .portraitEffects: return "urn:com:apple:photo:2018:aux:portraiteffectsmatte"
        case .skin: return "urn:com:apple:photo:2019:aux:semanticskinmatte"
        case .hair: return "urn:com:apple:photo:2019:aux:semantichairmatte"
        case .teeth: return "urn:com:apple:photo:2019:aux:semanticteethmatte"
        case .sky: return "urn:com:apple:photo:2020:aux:semanticskymatte"
        case .glasses: return "urn:com:apple:photo:2020:aux:semanticglassesmatte"
        case .lips: return "urn:org:darkroom:aux:lipsmatte"
        case .gamut: return "urn:org:darkroom:aux:gamutmatte"
        case .clipping: return "urn:org:darkroom:aux:clippingmatte"
        case .confidence: return "urn:org:darkroom:aux:confidencematte"
        case .skinColor: return "urn:org:darkroom:aux:skincolormatte"
        case .constantColourConfidence: return "urn:org:darkroom:aux:constantcolorconfidence"
        }
    }

    public init?(urn: String) {
        guard let k = MatteKind.allCases.first(where: { $0.urn == urn }) else { return nil }
        self = k
    }
}

/// An 8-bit greyscale auxiliary plane (0 = none, 255 = full membership).
public struct AuxiliaryPlane: Sendable, Equatable {
    public var kind: MatteKind
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]
    public init(kind: MatteKind, width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "AuxiliaryPlane pixel count mismatch")
        self.kind = kind; self.width = width; self.height = height; self.pixels = pixels
    }
}

/// A display-referred, encoded RGB image ready for an encoder: interleaved RGB, 8 or 16 bits
/// per sample, already cropped and rotated (so it is written with Orientation = 1).
public struct RenderedImage: Sendable {
    public var width: Int
    public var height: Int
    /// 8, 16, or 32 (float: `pixels32`).
    public var bitsPerSample: Int
    /// Interleaved RGB when `bitsPerSample == 8` (`width * height * 3`), else empty.
    public var pixels8: [UInt8]
    /// Interleaved RGB when `bitsPerSample == 16`, else empty.
    public var pixels16: [UInt16]
    /// Interleaved RGB when `bitsPerSample == 32`, else empty: the render before its transfer
    /// function and quantisation — linear, in the output space's primaries, not clipped to 0…1
    /// (a non-finite value is written as 0).
    public var pixels32: [Float] = []
    /// Name of the output colour space (e.g. "srgb", "p3", "p3-linear").
    public var colorSpaceName: String
    /// The ICC profile to embed.
    public var iccProfile: [UInt8]
    /// Metadata to carry into the output (`nil` fields are omitted).
    public var exif: ExifInfo
    /// A small 8-bit rendition (long side ~320 px) for HEIF `thmb` / JPEG IFD1, if made.
    public var thumbnail: Thumbnail?
    public var mattes: [AuxiliaryPlane]

    public init(width: Int, height: Int, bitsPerSample: Int, pixels8: [UInt8] = [], pixels16: [UInt16] = [],
                colorSpaceName: String, iccProfile: [UInt8], exif: ExifInfo = ExifInfo(),
                thumbnail: Thumbnail? = nil, mattes: [AuxiliaryPlane] = []) {
        self.width = width; self.height = height; self.bitsPerSample = bitsPerSample
        self.pixels8 = pixels8; self.pixels16 = pixels16; self.colorSpaceName = colorSpaceName
        self.iccProfile = iccProfile; self.exif = exif; self.thumbnail = thumbnail; self.mattes = mattes
    }
}

/// An 8-bit interleaved RGB thumbnail in the same colour space as its image.
public struct Thumbnail: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width; self.height = height; self.pixels = pixels
    }
}
