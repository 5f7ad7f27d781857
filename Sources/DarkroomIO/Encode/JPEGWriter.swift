import DarkroomCore

/// Chroma subsampling of a JPEG.
public enum JPEGSubsampling: String, Sendable, Codable, CaseIterable {
    case s444, s422, s420
    var tj: TurboJPEG.Sampling {
        switch self { case .s444: return .s444; case .s422: return .s422; case .s420: return .s420 }
    }
}

public struct JPEGOptions: Sendable {
    /// libjpeg quality 1…100 (IJG scaling of the Annex K tables).
    public var quality: Int
    /// `nil` chooses by quality: 4:4:4 at quality ≥ 90 (where chroma loss would dominate the
    /// error), 4:2:0 below.
    public var subsampling: JPEGSubsampling?
    /// When true no EXIF or XMP is written (the ICC profile is always kept, and so are mattes).
    public var stripMetadata: Bool
    /// EXIF DateTime (`"YYYY:MM:DD HH:MM:SS"`); `nil` writes the current local time.
    public var dateTime: String?

    public init(quality: Int = 90, subsampling: JPEGSubsampling? = nil, stripMetadata: Bool = false,
                dateTime: String? = nil) {
        self.quality = quality; self.subsampling = subsampling
        self.stripMetadata = stripMetadata; self.dateTime = dateTime
    }

    public var resolvedSubsampling: JPEGSubsampling { subsampling ?? (quality >= 90 ? .s444 : .s420) }
}

/// Writes a `RenderedImage` as a baseline JPEG (libjpeg-turbo), laid out like a camera JPEG:
///
///     SOI · APP0 JFIF · APP1 Exif (IFD0, Exif IFD, GPS IFD, IFD1 thumbnail ≤ 160×120) · APP1 XMP
///     · APP2 ICC_PROFILE… · APP2 MPF (when mattes) · frame … EOI
///     · [matte JPEGs, each with APP1 XMP apdi:AuxiliaryImageType]
///
/// The JFIF APP0 (libjpeg-turbo's: version 1.01, 1:1 aspect, no density unit; EXIF carries the
/// 72 dpi) comes first, as in iPhone JPEGs. The XMP carried from the raw file loses its
/// Camera Raw develop settings (`XMPDevelopSettings`): the pixels are already developed.
///
/// 16-bit images are converted to 8 bits by rounding (`v * 255 / 65535`), since baseline JPEG
/// holds 8-bit samples only.
public enum JPEGWriter {
    /// Thumbnail qualities tried in turn until EXIF fits one APP1 segment; if none fits, IFD1 is dropped.
    static let thumbnailQualities = [85, 70, 50]

    public static func encode(_ image: RenderedImage, options: JPEGOptions = .init()) throws(EncodeError) -> [UInt8] {
        guard (1...100).contains(options.quality) else {
            throw .invalidOption(format: "JPEG", reason: "quality \(options.quality) not in 1...100")
        }
        let rgb = try rgb8(image, format: "JPEG")
        let tj = try TurboJPEG(.compress)
        let coded = try StripJPEG.compress(rgb: rgb, width: image.width, height: image.height,
                                           quality: options.quality, sampling: options.resolvedSubsampling.tj)
        let (jfif, rest) = try JPEGSegment.splitAfterSOI(coded)
        guard !jfif.isEmpty else {
            throw .library(format: "JPEG", call: "tjCompress2", message: "output has no JFIF APP0 segment")
        }

        var head: [UInt8] = [0xFF, 0xD8] + jfif
        if !options.stripMetadata {
            head += try exifSegment(image, tj: tj, dateTime: options.dateTime ?? ExifWriter.dateTimeNow())
            if let xmp = image.exif.xmp.map(XMPDevelopSettings.removingCameraRawSettings), !xmp.isEmpty {
                head += try JPEGSegment.xmp(xmp)
            }
        }
        head += try JPEGSegment.icc(image.iccProfile)

        guard !image.mattes.isEmpty else { return head + rest }
        let mattes = try image.mattes.map { (plane) throws(EncodeError) -> [UInt8] in try matteJPEG(plane, tj: tj) }
        return MPFWriter.assemble(primaryHead: head, primaryRest: Array(rest), secondaries: mattes)
    }

    /// The box the EXIF IFD1 thumbnail fits in (EXIF 2.32 / DCF: 160 × 120 class), either orientation.
    public static let exifThumbnailLongSide = 160
    public static let exifThumbnailShortSide = 120

    /// `thumbnail` (the ~320 px rendition HEIF `thmb` uses) box-filtered to fit 160 × 120
    /// (120 × 160 for portrait), aspect kept; returned unchanged when it already fits.
    public static func exifThumbnail(_ thumbnail: Thumbnail) -> Thumbnail {
        let long = max(thumbnail.width, thumbnail.height), short = min(thumbnail.width, thumbnail.height)
        guard long > exifThumbnailLongSide || short > exifThumbnailShortSide, short > 0 else { return thumbnail }
        let side = min(exifThumbnailLongSide, max(1, exifThumbnailShortSide * long / short))
        let asImage = RenderedImage(width: thumbnail.width, height: thumbnail.height, bitsPerSample: 8,
                                    pixels8: thumbnail.pixels, colorSpaceName: "", iccProfile: [])
        return Thumbnailer.thumbnail(of: asImage, longSide: side) ?? thumbnail
    }

    /// The APP1 Exif segment, with the largest thumbnail quality that fits.
    static func exifSegment(_ image: RenderedImage, tj: borrowing TurboJPEG, dateTime: String) throws(EncodeError) -> [UInt8] {
        func tiff(_ thumb: [UInt8]?) -> [UInt8] {
            ExifWriter.tiff(exif: image.exif, pixelWidth: image.width, pixelHeight: image.height,
                            colorSpaceName: image.colorSpaceName, thumbnailJPEG: thumb, dateTime: dateTime)
        }
        if let full = image.thumbnail, full.width > 0, full.height > 0, full.pixels.count == full.width * full.height * 3 {
            let t = exifThumbnail(full)
            for q in thumbnailQualities {
                let jpeg = try tj.compress(pixels: t.pixels, width: t.width, height: t.height, channels: 3,
                                           quality: q, sampling: .s420)
                let payload = tiff(jpeg)
                if payload.count + JPEGSegment.exifSignature.count <= JPEGSegment.maxPayload {
                    return try JPEGSegment.exif(payload)
                }
            }
        }
        return try JPEGSegment.exif(tiff(nil))
    }

    /// One matte as a greyscale JPEG (quality 90) whose XMP names its auxiliary type, as in
    /// iPhone portrait JPEGs.
    static func matteJPEG(_ plane: AuxiliaryPlane, tj: borrowing TurboJPEG) throws(EncodeError) -> [UInt8] {
        guard plane.width > 0, plane.height > 0, plane.pixels.count == plane.width * plane.height else {
            throw .invalidImage(format: "JPEG", reason: "matte \(plane.kind.rawValue) is \(plane.width)x\(plane.height) with \(plane.pixels.count) samples")
        }
        let coded = try tj.compress(pixels: plane.pixels, width: plane.width, height: plane.height, channels: 1,
                                    quality: 90, sampling: .gray)
        let (_, rest) = try JPEGSegment.splitAfterSOI(coded)
        return [0xFF, 0xD8] + (try JPEGSegment.xmp(MatteXMP.packet(for: plane.kind))) + rest
    }

    /// Interleaved 8-bit RGB of the image, validated; 16-bit samples are rounded to 8 bits.
    static func rgb8(_ image: RenderedImage, format: String) throws(EncodeError) -> [UInt8] {
        guard image.width > 0, image.height > 0, image.width <= 65500, image.height <= 65500 else {
            throw .invalidImage(format: format, reason: "size \(image.width)x\(image.height)")
        }
        let n = image.width * image.height * 3
        switch image.bitsPerSample {
        case 8:
            guard image.pixels8.count == n else {
                throw .invalidImage(format: format, reason: "pixels8 has \(image.pixels8.count) samples, expected \(n)")
            }
            return image.pixels8
        case 16:
            guard image.pixels16.count == n else {
                throw .invalidImage(format: format, reason: "pixels16 has \(image.pixels16.count) samples, expected \(n)")
            }
            return image.pixels16.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        default:
            throw .invalidImage(format: format, reason: "\(image.bitsPerSample) bits per sample (8 or 16 supported)")
        }
    }
}
