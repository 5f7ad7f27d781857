import DarkroomCore
import Foundation

/// Output container.
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, heif, tiff
    public var fileExtension: String {
        switch self { case .jpeg: return "jpg"; case .heif: return "heic"; case .tiff: return "tif" }
    }
}

/// How the developed image is written.
public struct ExportOptions: Sendable, Equatable {
    public var format: OutputFormat = .jpeg
    /// Encoder quality 1…100; nil = the format's default (JPEG 90, HEIF 60 on libheif's scale).
    public var quality: Int?
    /// Replace an existing output (default: refuse, and leave it untouched).
    public var overwrite: Bool = false
    /// Omit EXIF/XMP/thumbnail (ICC is always embedded).
    public var stripMetadata: Bool = false
    public init() {}
}

/// What one file's development produced.
public struct DevelopResult: Sendable, Codable, Equatable {
    public var input: String
    public var output: String
    public var format: String
    public var colorSpace: String
    public var width: Int
    public var height: Int
    public var bytes: Int
    public var warnings: [String]
    /// Milliseconds spent decoding, rendering and encoding.
    public var decodeMilliseconds: Double
    public var renderMilliseconds: Double
    public var encodeMilliseconds: Double
}

/// Why one file failed; one line naming the file and the reason.
public enum DevelopFailure: Error, Sendable, CustomStringConvertible {
    case decode(DecodeError)
    case develop(path: String, DevelopError)
    case encode(path: String, reason: String)
    case write(AtomicWriter.Failure)

    public var description: String {
        switch self {
        case .decode(let e): return e.description
        case .develop(let p, let e): return "\(p): \(e.description)"
        case .encode(let p, let r): return "\(p): cannot encode output (\(r))"
        case .write(let e): return e.description
        }
    }

    /// A short machine-readable category for reports.
    public var category: String {
        switch self {
        case .decode(let e):
            switch e {
            case .fileNotFound: return "not-found"
            case .unreadable: return "unreadable"
            case .notRaw: return "not-raw"
            case .unsupported: return "unsupported"
            case .truncated: return "truncated"
            case .corrupt: return "corrupt"
            case .invalidParameters: return "invalid-parameters"
            }
        case .develop: return "develop"
        case .encode: return "encode"
        case .write(let w): if case .exists = w { return "exists" } else { return "write" }
        }
    }
}

/// Decode → plan → render → encode → atomic write, for one file.
public enum FileDeveloper {
    /// `OUTDIR/NAME.ext`, NAME being the input's file name without its extension.
    public static func outputPath(for input: String, outputDirectory: String, format: OutputFormat) -> String {
        let base = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return URL(fileURLWithPath: outputDirectory).appendingPathComponent("\(base).\(format.fileExtension)").path
    }

    public static func develop(input: String, output: String, recipe: DevelopRecipe, export: ExportOptions,
                               decode: DecodeOptions = .init()) throws(DevelopFailure) -> DevelopResult {
        if !export.overwrite && FileManager.default.fileExists(atPath: output) {
            throw .write(.exists(path: output))
        }
        var recipe = recipe
        if export.format == .jpeg { recipe.bitsPerSample = 8 }
        let t0 = DispatchTime.now().uptimeNanoseconds
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: input, options: decode) } catch { throw .decode(error) }
        let t1 = DispatchTime.now().uptimeNanoseconds
        let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: input)
        var image = Developer.render(raw, plan: plan)
        let t2 = DispatchTime.now().uptimeNanoseconds
        do { image.iccProfile = try ICCProfileFactory.profile(for: recipe.colorSpace) } catch {
            throw .encode(path: input, reason: "ICC profile: \(error)")
        }
        image.exif.software = "Darkroom \(DarkroomVersion.string)"
        if export.stripMetadata { image.exif = ExifInfo(); image.thumbnail = nil }
        // DateTime = the capture time (never "now"), so the same input gives the same bytes.
        let stamp = image.exif.dateTimeOriginal ?? ""
        let bytes: [UInt8]
        do {
            switch export.format {
            case .jpeg:
                var o = JPEGOptions()
                if let q = export.quality { o.quality = q }
                o.stripMetadata = export.stripMetadata
                o.dateTime = stamp
                bytes = try JPEGWriter.encode(image, options: o)
            case .heif:
                var o = HEIFOptions()
                if let q = export.quality { o.quality = q }
                o.stripMetadata = export.stripMetadata
                o.dateTime = stamp
                bytes = try HEIFWriter.encode(image, options: o)
            case .tiff:
                var o = TIFFOptions()
                o.dateTime = stamp
                bytes = try TIFFWriter.encode(image, options: o)
            }
        } catch { throw .encode(path: input, reason: "\(error)") }
        do { try AtomicWriter.write(bytes, to: output, overwrite: export.overwrite) } catch { throw .write(error) }
        let t3 = DispatchTime.now().uptimeNanoseconds
        return DevelopResult(input: input, output: output, format: export.format.rawValue,
                             colorSpace: recipe.colorSpace.rawValue, width: image.width, height: image.height,
                             bytes: bytes.count, warnings: plan.warnings,
                             decodeMilliseconds: Double(t1 - t0) / 1e6, renderMilliseconds: Double(t2 - t1) / 1e6,
                             encodeMilliseconds: Double(t3 - t2) / 1e6)
    }
}
