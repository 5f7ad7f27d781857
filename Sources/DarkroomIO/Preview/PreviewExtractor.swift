import DarkroomCore
import Foundation

/// A JPEG preview of a RAW/DNG file and where it came from.
public struct Preview: Sendable {
    /// Where the pixels came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// A JPEG preview IFD of the DNG, copied byte for byte.
        case embeddedPreview
        /// LibRaw's thumbnail, a JPEG copied byte for byte.
        case libRawJPEG
        /// LibRaw's thumbnail, an 8-bit RGB bitmap encoded as JPEG.
        case libRawBitmap
        /// No usable embedded preview: rendered through the develop pipeline.
        case rendered(halfSizeBinned: Bool)

        public var description: String {
            switch self {
            case .embeddedPreview: return "JPEG preview"
            case .libRawJPEG: return "JPEG thumbnail"
            case .libRawBitmap: return "bitmap thumbnail"
            case .rendered(let binned): return binned ? "half-size binned render" : "full render"
            }
        }
    }

    /// A complete JPEG file.
    public var jpeg: [UInt8]
    /// Pixels of `jpeg`.
    public var width: Int
    public var height: Int
    public var source: Source
    /// Embedded previews that were found but refused (each: size and the decoder's reason).
    public var refused: [String]

    /// One line for the user, e.g. "embedded 1024x683 JPEG preview".
    public var summary: String {
        let skipped = refused.isEmpty ? "" : "; refused \(refused.joined(separator: ", "))"
        switch source {
        case .rendered:
            return "rendered \(width)x\(height) from a \(source) (no usable embedded preview\(skipped))"
        default:
            return "embedded \(width)x\(height) \(source)\(skipped)"
        }
    }
}

/// The one place Darkroom gets a quick JPEG look at a RAW file (`darkroom thumbnail`).
///
/// Order: (1) the DNG's JPEG preview IFDs, largest first; (2) LibRaw's thumbnail (other RAWs, and
/// DNGs whose previews are unusable); (3) a render through the develop pipeline (`PlanBuilder`:
/// camera-profile lookup, white balance, the recipe's colour space) box-filtered by `Thumbnailer`
/// to `longSide`. An embedded JPEG is used only after libjpeg-turbo decoded it completely with
/// warnings treated as errors: a truncated or corrupt preview is never copied out, the next
/// source is tried instead (and named in `Preview.refused`).
///
/// Develop's own embedded thumbnails (JPEG IFD1, HEIF `thmb`) do not come from here: they are
/// `Thumbnailer` over the developed image itself, so they show that develop's recipe, crop and
/// orientation, which a camera preview would not.
public enum PreviewExtractor {
    /// Previews larger than this many pixels (64 MP, beyond any camera's preview) are not
    /// decoded for validation, nor used.
    public static let maximumPreviewPixels = 1 << 26
    /// A JPEG claiming more pixels per byte of data than this is refused before decoding (a
    /// flat 4:2:0 baseline JPEG needs ~0.1 bit per pixel; real previews carry 0.5–4), so a tiny
    /// hostile preview cannot make the validation allocate hundreds of MB.
    public static let maximumPixelsPerByte = 256

    /// The best preview of `path`; when none is usable, a render of long side `longSide`.
    /// `recipe` drives the render (its thumbnail size and bit depth are ignored).
    public static func preview(path: String, longSide: Int, recipe: DevelopRecipe = DevelopRecipe(),
                               decode: DecodeOptions = DecodeOptions(),
                               profileSearchDirectories: [String] = ProfileLibrary.defaultSearchDirectories)
        throws(DevelopFailure) -> Preview {
        var refused: [String] = []
        let metadata: RawMetadata
        do { metadata = try RawDecoder.metadata(path: path, options: decode) } catch {
            // Pixels we cannot decode may still carry a preview LibRaw can unpack.
            if let p = libRawPreview(path: path, refused: &refused) { return p }
            throw .decode(error)
        }
        let candidates = metadata.previews.filter { $0.kind == "jpeg" && $0.length > 2 }
            .sorted { $0.width * $0.height > $1.width * $1.height }
        for candidate in candidates {
            let label = "\(candidate.width)x\(candidate.height) preview"
            guard let bytes = readRange(path: path, offset: candidate.offset, length: candidate.length) else {
                refused.append("\(label) (outside the file)"); continue
            }
            switch validate(bytes) {
            case .success(let size):
                return Preview(jpeg: bytes, width: size.width, height: size.height, source: .embeddedPreview, refused: refused)
            case .failure(let reason):
                refused.append("\(label) (\(reason))")
            }
        }
        if let p = libRawPreview(path: path, refused: &refused) { return p }
        return try render(path: path, longSide: longSide, recipe: recipe, decode: decode,
                          profileSearchDirectories: profileSearchDirectories, refused: refused)
    }

    /// Decodes `jpeg` completely (libjpeg-turbo, warnings are errors): its size, or why not.
    static func validate(_ jpeg: [UInt8]) -> Result<(width: Int, height: Int), PreviewRefusal> {
        guard jpeg.starts(with: [0xFF, 0xD8]) else { return .failure(PreviewRefusal("not a JPEG")) }
        do {
            let decoder = try TurboJPEG(.decompress, format: "preview JPEG")
            let header = try decoder.header(jpeg)
            let (budget, overflow) = jpeg.count.multipliedReportingOverflow(by: maximumPixelsPerByte)
            let limit = min(maximumPreviewPixels, overflow ? .max : max(1 << 16, budget))
            guard header.width > 0, header.height > 0, header.width <= limit / header.height else {
                return .failure(PreviewRefusal("implausible size \(header.width)x\(header.height)"))
            }
            let decoded = try decoder.decompress(jpeg, stopOnWarning: true)
            return .success((decoded.width, decoded.height))
        } catch {
            if case .library(_, _, let message) = error { return .failure(PreviewRefusal("libjpeg-turbo: \(message)")) }
            return .failure(PreviewRefusal(error.description))
        }
    }

    /// `length` bytes at `offset`, or nil when they are not all inside the file.
    static func readRange(path: String, offset: Int, length: Int) -> [UInt8]? {
        guard offset >= 0, length > 0, let fh = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? fh.close() }
        guard let end = try? fh.seekToEnd(), UInt64(offset) <= end, UInt64(length) <= end - UInt64(offset),
              (try? fh.seek(toOffset: UInt64(offset))) != nil,
              let data = try? fh.read(upToCount: length), data.count == length else { return nil }
        return [UInt8](data)
    }

    /// LibRaw's thumbnail when it is a JPEG that decodes, or a bitmap of at least 64×64.
    private static func libRawPreview(path: String, refused: inout [String]) -> Preview? {
        guard let t = try? LibRawThumbnail.extract(path: path) else { return nil }
        switch t.kind {
        case .jpeg:
            switch validate(t.bytes) {
            case .success(let size):
                return Preview(jpeg: t.bytes, width: size.width, height: size.height, source: .libRawJPEG, refused: refused)
            case .failure(let reason):
                refused.append("\(t.width)x\(t.height) thumbnail (\(reason))")
                return nil
            }
        case .rgb8 where t.width >= 64 && t.height >= 64:
            guard let icc = try? ICCProfileFactory.profile(for: .srgb) else { return nil }
            let image = RenderedImage(width: t.width, height: t.height, bitsPerSample: 8, pixels8: t.bytes,
                                      colorSpaceName: "srgb", iccProfile: icc)
            guard let jpeg = try? JPEGWriter.encode(image, options: JPEGOptions(dateTime: "")) else { return nil }
            return Preview(jpeg: jpeg, width: t.width, height: t.height, source: .libRawBitmap, refused: refused)
        default:
            return nil
        }
    }

    /// Decode → (2×2 binning when `longSide` is at most half the sensor's long side) → plan with
    /// profile lookup → render → `Thumbnailer` to `longSide` → JPEG.
    static func render(path: String, longSide: Int, recipe: DevelopRecipe, decode: DecodeOptions,
                       profileSearchDirectories: [String], refused: [String]) throws(DevelopFailure) -> Preview {
        var recipe = recipe
        recipe.thumbnailSize = 0
        recipe.bitsPerSample = 8
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: path, options: decode) } catch { throw .decode(error) }
        var source = raw
        var binned = false
        if let half = raw.halfSizeBinned(), max(half.width, half.height) >= longSide {
            source = half
            binned = true
            recipe.applyOpcodes = false   // their coordinates are those of the full mosaic
        }
        let plan = try PlanBuilder.plan(for: source, recipe: recipe, path: path,
                                        profileSearchDirectories: profileSearchDirectories)
        let image = try thumbnailImage(TileRenderer.render(source, plan: plan), longSide: longSide,
                                       colorSpace: recipe.colorSpace, path: path)
        let jpeg: [UInt8]
        // DateTime = the capture time (never "now"), so the same input gives the same bytes.
        let options = JPEGOptions(dateTime: image.exif.dateTimeOriginal ?? "")
        do { jpeg = try JPEGWriter.encode(image, options: options) } catch { throw .encode(path: path, reason: error.description) }
        return Preview(jpeg: jpeg, width: image.width, height: image.height, source: .rendered(halfSizeBinned: binned),
                       refused: refused)
    }

    /// `full` (rendered in `colorSpace`) box-filtered to `longSide`: 8-bit, with the colour
    /// space's ICC profile and the render's EXIF.
    static func thumbnailImage(_ full: RenderedImage, longSide: Int, colorSpace: OutputColorSpace,
                               path: String) throws(DevelopFailure) -> RenderedImage {
        guard let small = Thumbnailer.thumbnail(of: full, longSide: longSide) else {
            throw .encode(path: path, reason: "cannot make a \(longSide)-pixel preview of an empty image")
        }
        let icc: [UInt8]
        do { icc = try ICCProfileFactory.profile(for: colorSpace) } catch {
            throw .encode(path: path, reason: "ICC profile: \(error)")
        }
        return RenderedImage(width: small.width, height: small.height, bitsPerSample: 8, pixels8: small.pixels,
                             colorSpaceName: full.colorSpaceName, iccProfile: icc, exif: full.exif)
    }
}

/// Why an embedded preview was not used (one line).
struct PreviewRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
