import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom thumbnail FILE... -o DIR`: the largest embedded preview, without developing.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Extract each file's largest embedded preview as DIR/NAME.jpg (fast contact sheets).",
        discussion: """
        DNG previews come from the file's own IFDs (the largest JPEG preview); other RAWs from \
        LibRaw's thumbnail API. A file without a usable preview gets a fast render instead \
        (2×2 CFA quads binned to half size, no demosaic; box-filtered to --size). Exit status: 0 all written, 1 some failed, \
        2 usage error.
        """)

    @Argument(help: "RAW/DNG files.")
    var files: [String]

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Option(help: "Long side of the fallback render in pixels.")
    var size: Int = 1024

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one input file") }
        guard (16...16384).contains(size) else { throw ValidationError("--size must be 16…16384") }
    }

    func run() throws {
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw CLIError("\(outputDirectory): cannot create output directory (\((error as NSError).localizedDescription))")
        }
        var used = Set<String>()
        var failed = false
        for f in files {
            let stem = URL(fileURLWithPath: f).deletingPathExtension().lastPathComponent
            var name = stem, n = 2
            while used.contains(name.lowercased()) { name = "\(stem)-\(n)"; n += 1 }
            used.insert(name.lowercased())
            let out = (outputDirectory as NSString).appendingPathComponent(name + ".jpg")
            do {
                let (bytes, source) = try Self.preview(for: f, fallbackSize: size)
                do { try AtomicWriter.write(bytes, to: out, overwrite: overwrite) } catch { throw CLIError(error.description) }
                if !quiet { Console.out("\(f) → \(out) (\(source))") }
            } catch {
                failed = true
                Console.err("darkroom: error: \(error)")
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// JPEG bytes of the best preview and where they came from.
    static func preview(for path: String, fallbackSize: Int) throws -> ([UInt8], String) {
        let md: RawMetadata
        do { md = try RawDecoder.metadata(path: path) } catch {
            // Pixels we cannot decode may still carry a preview LibRaw can unpack.
            if let t = try? LibRawThumbnail.extract(path: path), t.kind == "jpeg", t.bytes.starts(with: [0xFF, 0xD8]) {
                return (t.bytes, "embedded \(t.width)x\(t.height) JPEG thumbnail")
            }
            throw error
        }
        // 1. The DNG's largest JPEG preview.
        if let p = md.previews.filter({ $0.kind == "jpeg" && $0.length > 2 }).max(by: { $0.width * $0.height < $1.width * $1.height }),
           let fh = FileHandle(forReadingAtPath: path) {
            defer { try? fh.close() }
            if (try? fh.seek(toOffset: UInt64(p.offset))) != nil, let data = try? fh.read(upToCount: p.length),
               data.count == p.length, data.starts(with: [0xFF, 0xD8]) {
                return ([UInt8](data), "embedded \(p.width)x\(p.height) JPEG preview")
            }
        }
        // 2. LibRaw's thumbnail (non-DNG RAWs, and DNGs whose previews we could not use).
        if let t = try? LibRawThumbnail.extract(path: path) {
            if t.kind == "jpeg", t.bytes.starts(with: [0xFF, 0xD8]) { return (t.bytes, "embedded \(t.width)x\(t.height) JPEG thumbnail") }
            if t.kind == "rgb8", t.width * t.height >= 64 * 64 {
                let image = RenderedImage(width: t.width, height: t.height, bitsPerSample: 8, pixels8: t.bytes,
                                          colorSpaceName: "srgb", iccProfile: try ICCProfileFactory.profile(for: .srgb))
                return (try JPEGWriter.encode(image), "embedded \(t.width)x\(t.height) bitmap thumbnail")
            }
        }
        // 3. A fast render: 2×2 CFA quads binned to a half-size RGB image (no demosaic; bilinear
        //    demosaic at full size when the mosaic cannot be binned), box-filtered to --size.
        let decoded = try RawDecoder.decode(path: path)
        let half = decoded.halfSizeBinned()
        let raw = half ?? decoded
        var recipe = DevelopRecipe()
        recipe.demosaic = .bilinear
        recipe.thumbnailSize = 0
        recipe.bitsPerSample = 8
        if half != nil { recipe.applyOpcodes = false }
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height,
                                   samplesPerPixel: raw.samplesPerPixel, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        let full = Developer.render(raw, plan: plan)
        guard let small = Thumbnailer.thumbnail(of: full, longSide: fallbackSize) else {
            throw CLIError("\(path): cannot render a thumbnail (empty image)")
        }
        let image = RenderedImage(width: small.width, height: small.height, bitsPerSample: 8, pixels8: small.pixels,
                                  colorSpaceName: full.colorSpaceName, iccProfile: try ICCProfileFactory.profile(for: recipe.colorSpace),
                                  exif: full.exif)
        return (try JPEGWriter.encode(image), "rendered \(small.width)x\(small.height) from a \(half != nil ? "half-size binned" : "bilinear") render (no embedded preview)")
    }
}
