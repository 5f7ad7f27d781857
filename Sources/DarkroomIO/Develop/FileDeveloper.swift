import DarkroomCore
import Foundation

/// Output container.
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, heif, tiff, exr
    public var fileExtension: String {
        switch self { case .jpeg: return "jpg"; case .heif: return "heic"; case .tiff: return "tif"; case .exr: return "exr" }
    }
}

/// A matte the caller supplies as an 8-bit greyscale PNG instead of having it computed
/// (`--matte KIND=FILE.png`). The file's existence is checked when the image is developed.
public struct SuppliedMatteSpec: Sendable, Equatable, Codable {
    public var kind: MatteKind
    public var path: String
    public init(kind: MatteKind, path: String) { self.kind = kind; self.path = path }
}

/// How the developed image is written.
public struct ExportOptions: Sendable, Equatable {
    public var format: OutputFormat = .jpeg
    /// Encoder quality 1…100; nil = the format's default (JPEG 90, HEIF 50 on libheif's scale).
    public var quality: Int?
    /// Replace an existing output (default: refuse, and leave it untouched).
    public var overwrite: Bool = false
    /// Omit EXIF/XMP/thumbnail (ICC is always embedded).
    public var stripMetadata: Bool = false
    /// HEIF 4:2:0 (default, as iPhones write) or 4:4:4 (`--chroma 444`).
    public var heifChroma444: Bool = false
    /// HEIF: also write an `nclx` colour box beside the ICC profile (`--nclx`; `HEIFOptions.nclx`).
    public var heifNCLX: Bool = false
    /// Mattes to compute and embed as auxiliary planes (`--mattes`); wired by the matte builder.
    public var computedMattes: [MatteKind] = []
    /// Mattes read from PNG files and embedded as auxiliary planes (`--matte KIND=FILE.png`).
    public var suppliedMattes: [SuppliedMatteSpec] = []
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
    /// The picture-quality controls as resolved for this file (`DevelopPlan.resolvedControls`).
    public var controls: [String: String] = [:]
    /// Milliseconds spent decoding, rendering and encoding.
    public var decodeMilliseconds: Double
    public var renderMilliseconds: Double
    public var encodeMilliseconds: Double

    public init(input: String, output: String, format: String, colorSpace: String, width: Int, height: Int, bytes: Int,
                warnings: [String], decodeMilliseconds: Double, renderMilliseconds: Double, encodeMilliseconds: Double,
                controls: [String: String] = [:]) {
        self.input = input; self.output = output; self.format = format; self.colorSpace = colorSpace
        self.width = width; self.height = height; self.bytes = bytes; self.warnings = warnings
        self.decodeMilliseconds = decodeMilliseconds; self.renderMilliseconds = renderMilliseconds
        self.encodeMilliseconds = encodeMilliseconds; self.controls = controls
    }
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
        case .decode(let e): return e.category
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
        let results = try develop(input: input, outputs: [(export.format, output)], recipe: recipe, export: export,
                                  decode: decode)
        guard let first = results.first else { throw .encode(path: input, reason: "no output produced") }
        return first
    }

    /// Decodes and renders `input` once, then encodes and atomically writes one file per
    /// `(format, path)` pair (`export.format` is ignored). The render is 16-bit when
    /// `recipe.bitsPerSample` is 16 and some output is HEIF or TIFF; a JPEG made from a 16-bit
    /// render is reduced to 8 bits by rounding (x · 255 / 65535). Outputs already written stay
    /// written when a later one fails. Results are in the order of `outputs`. With `directory`,
    /// every output must lie below it and is written through its descriptor
    /// (`AtomicWriter.write(_:in:relativePath:overwrite:)`: no symbolic link followed, protected
    /// names and files refused).
    public static func develop(input: String, outputs: [(format: OutputFormat, path: String)], recipe: DevelopRecipe,
                               export: ExportOptions, decode: DecodeOptions = .init(),
                               directory: AtomicWriter.Directory? = nil) throws(DevelopFailure) -> [DevelopResult] {
        if !export.overwrite, let existing = outputs.first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw .write(.exists(path: existing.path))
        }
        var recipe = recipe
        if outputs.allSatisfy({ $0.format == .jpeg }) { recipe.bitsPerSample = 8 }
        // Float outputs (`--format exr`, `--format tiff --bit-depth 32`) come from a float render:
        // linear, in the colour space's linear variant, no thumbnail; EXR is half unless 32 bits.
        let exrHalf = recipe.bitsPerSample != 32
        if recipe.bitsPerSample == 32 || outputs.contains(where: { $0.format == .exr }) {
            if let other = outputs.first(where: { !($0.format == .exr || ($0.format == .tiff && recipe.bitsPerSample == 32)) }) {
                throw .encode(path: input, reason: "\(other.format.rawValue) cannot be written from the float render of --format exr / --bit-depth 32 (write it in a separate run)")
            }
            recipe.bitsPerSample = 32
            recipe.colorSpace = recipe.colorSpace.linearVariant
            recipe.thumbnailSize = 0
        }
        var decode = decode
        decode.applyOpcodeList1 = decode.applyOpcodeList1 && recipe.applyOpcodes && recipe.opcodeLists.contains(1)
        decode.threads = recipe.threads
        let t0 = DispatchTime.now().uptimeNanoseconds
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: input, options: decode) } catch { throw .decode(error) }
        let t1 = DispatchTime.now().uptimeNanoseconds
        let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: input)
        var image = TileRenderer.render(raw, plan: plan)
        // Auxiliary planes: computed (gamut, clipping, skin-color; portrait, skin, teeth, lips by
        // neural segmentation) and supplied (--matte KIND=FILE.png), half the output's size (long
        // side ≤ 2016), in the output's geometry.
        // Semantic planes are computed on a thread of their own while the outputs are encoded
        // (HEIF codes its primary first); order of the planes: computed, semantic, supplied.
        var semantic: SemanticMatteBuilder.Pending?
        if !export.computedMattes.isEmpty {
            image.mattes += MatteBuilder.computed(export.computedMattes, image: image, raw: raw, plan: plan)
            do throws(SemanticMatteBuilder.Failure) {
                semantic = try SemanticMatteBuilder.start(export.computedMattes, image: image, space: plan.recipe.colorSpace)
            } catch { throw .encode(path: input, reason: error.description) }
        }
        let computedCount = image.mattes.count
        for spec in export.suppliedMattes {
            do {
                image.mattes.append(try SuppliedMatte.load(path: spec.path, kind: spec.kind, width: image.width, height: image.height))
            } catch { throw .encode(path: input, reason: "matte \(spec.kind.rawValue): \(error.description)") }
        }
        let baseMattes = image.mattes
        /// Every plane, the semantic ones once they are ready.
        func allMattes() throws(SemanticMatteBuilder.Failure) -> [AuxiliaryPlane] {
            guard let semantic else { return baseMattes }
            return Array(baseMattes[..<computedCount]) + (try semantic.wait()) + Array(baseMattes[computedCount...])
        }
        let t2 = DispatchTime.now().uptimeNanoseconds
        let decodeMs = Double(t1 - t0) / 1e6, renderMs = Double(t2 - t1) / 1e6
        do { image.iccProfile = try ICCProfileFactory.profile(for: recipe.colorSpace) } catch {
            throw .encode(path: input, reason: "ICC profile: \(error)")
        }
        image.exif.software = "Darkroom \(DarkroomVersion.string)"
        if export.stripMetadata { image.exif = ExifInfo(); image.thumbnail = nil }
        var results: [DevelopResult] = []
        for (format, output) in outputs {
            let e0 = DispatchTime.now().uptimeNanoseconds
            let bytes: [UInt8]
            if semantic != nil && format == .heif {
                bytes = try encode(image, format: format, export: export, input: input, exrHalf: exrHalf) { () throws(EncodeError) in
                    do throws(SemanticMatteBuilder.Failure) { return try allMattes() } catch {
                        throw .invalidImage(format: "HEIF", reason: error.description)
                    }
                }
            } else {
                if semantic != nil {
                    do throws(SemanticMatteBuilder.Failure) { image.mattes = try allMattes() } catch {
                        throw .encode(path: input, reason: error.description)
                    }
                }
                bytes = try encode(image, format: format, export: export, input: input, exrHalf: exrHalf)
            }
            do throws(AtomicWriter.Failure) {
                if let directory {
                    guard let rel = directory.relative(output) else {
                        throw .refused(path: output, reason: "outside the output directory \(directory.path)")
                    }
                    try AtomicWriter.write(bytes, in: directory, relativePath: rel, overwrite: export.overwrite)
                } else {
                    try AtomicWriter.write(bytes, to: output, overwrite: export.overwrite)
                }
            } catch { throw .write(error) }
            let e1 = DispatchTime.now().uptimeNanoseconds
            results.append(DevelopResult(input: input, output: output, format: format.rawValue,
                                         colorSpace: recipe.colorSpace.rawValue, width: image.width, height: image.height,
                                         bytes: bytes.count, warnings: plan.warnings,
                                         decodeMilliseconds: decodeMs, renderMilliseconds: renderMs,
                                         encodeMilliseconds: Double(e1 - e0) / 1e6, controls: plan.resolvedControls(for: raw)))
        }
        return results
    }

    /// One container's bytes for a rendered image.
    /// `exrHalf`: EXR samples as half floats (else float32).
    /// `mattes`: for HEIF, the auxiliary planes supplied late (see `HEIFWriter.encode`); other
    /// formats use `image.mattes`.
    public static func encode(_ image: RenderedImage, format: OutputFormat, export: ExportOptions,
                              input: String, exrHalf: Bool = true,
                              mattes: (() throws(EncodeError) -> [AuxiliaryPlane])? = nil) throws(DevelopFailure) -> [UInt8] {
        // DateTime = the capture time (never "now"), so the same input gives the same bytes.
        let stamp = image.exif.dateTimeOriginal ?? ""
        do {
            switch format {
            case .jpeg:
                var o = JPEGOptions()
                if let q = export.quality { o.quality = q }
                o.stripMetadata = export.stripMetadata
                o.dateTime = stamp
                return try JPEGWriter.encode(image.bitsPerSample == 16 ? reducedTo8Bits(image) : image, options: o)
            case .heif:
                var o = HEIFOptions()
                if let q = export.quality { o.quality = q }
                o.chroma = export.heifChroma444 ? .s444 : .s420
                o.nclx = export.heifNCLX
                o.stripMetadata = export.stripMetadata
                o.dateTime = stamp
                return try HEIFWriter.encode(image, options: o, mattes: mattes)
            case .tiff:
                var o = TIFFOptions()
                o.dateTime = stamp
                return try TIFFWriter.encode(image, options: o)
            case .exr:
                return try EXRWriter.encode(image, half: exrHalf)
            }
        } catch { throw .encode(path: input, reason: "\(error)") }
    }

    /// A 16-bit render as 8 bits per sample, rounding each value to the nearest of 256 levels.
    static func reducedTo8Bits(_ image: RenderedImage) -> RenderedImage {
        var out = image
        out.bitsPerSample = 8
        out.pixels8 = image.pixels16.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
        out.pixels16 = []
        return out
    }
}
