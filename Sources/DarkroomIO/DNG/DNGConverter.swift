import DarkroomCore
import DarkroomFormats
import Foundation

/// How `DNGConverter` writes a DNG.
public struct DNGConvertOptions: Sendable, Equatable, Codable {
    /// Storage of the raw samples.
    public enum Compression: String, Sendable, CaseIterable, Codable {
        /// Lossless JPEG (Compression 7), 2-component streams, one per tile.
        case ljpeg
        /// Uncompressed 16-bit samples.
        case none
        /// Lossless JPEG XL (Compression 52546, DNG 1.7; libjxl, effort 7), the CFA stored as its
        /// 2×2 fields. Readers need DNG 1.7 support (Adobe's since 2023, the DNG SDK 1.7; LibRaw
        /// 0.20/0.21 cannot read it).
        case jxl = "jxl-lossless"
    }
    public var compression: Compression = .ljpeg
    /// Long side in pixels of the JPEG preview SubIFD (rendered by our pipeline); nil: no preview
    /// and no thumbnail (IFD0 is then the raw image).
    public var previewLongSide: Int? = 1024
    /// Long side of the uncompressed RGB thumbnail in IFD0 (with a preview).
    public var thumbnailLongSide = 256
    /// Decode the written file with our own decoder and compare every stored sample with the
    /// source (and the digests with the samples) before the DNG takes its final name.
    public var verify = true
    /// Threads for tile encoding and digests (0 = one per core). Changes speed, never bytes.
    public var threads = 0
    /// Tile edge (a multiple of 16).
    public var tileSize = 256
    /// Embed the input file (OriginalRawFileName/Data/Digest) for `extract`.
    public var embedOriginal = false
    /// Replace an existing output.
    public var overwrite = false
    /// Bytes the decoded samples may take at most; nil: the file-size plausibility bound only.
    public var memoryLimit: Int64?
    public init() {}
}

extension DNGConvertOptions.Compression {
    /// The writer's setting for this choice.
    var dngCompression: DNGCompression {
        switch self {
        case .ljpeg: return .losslessJPEG(components: 2)
        case .none: return .uncompressed
        case .jxl: return .jpegXL(effort: 7)
        }
    }
}

/// What one conversion did, for reports (sizes in bytes, times in milliseconds).
public struct DNGConvertResult: Sendable, Codable, Equatable {
    public var input: String
    public var output: String
    public var inputBytes: Int
    public var outputBytes: Int
    /// Stored image (the whole sensor as LibRaw unpacks it) and its ActiveArea ("WxH+X+Y").
    public var width: Int
    public var height: Int
    public var activeArea: String
    public var samplesPerPixel: Int
    /// Stored samples at 16 bits (width × height × samples × 2).
    public var uncompressedBytes: Int
    /// `uncompressedBytes` / bytes of the compressed raw tiles.
    public var compressionRatio: Double
    public var rawDataBytes: Int
    /// Hex MD5s as written (RawImageDigest, NewRawImageDigest; the latter doubles as pixel digest,
    /// except for JPEG XL storage, where it is the DNG SDK's digest of the compressed tiles and
    /// RawImageDigest is not written: "").
    public var rawImageDigest: String
    public var newRawImageDigest: String
    public var verified: Bool
    public var embeddedOriginal: Bool
    public var decodeMilliseconds: Double
    public var previewMilliseconds: Double
    public var encodeMilliseconds: Double
    public var verifyMilliseconds: Double
    public var warnings: [String]
}

/// Why a conversion or a verification failed; messages name the file and the reason in one line.
public enum DNGConvertError: Error, Sendable, CustomStringConvertible {
    case decode(DecodeError)
    case write(path: String, reason: String)
    case exists(path: String)
    /// The written or checked DNG differs from what it must hold (samples or digests).
    case mismatch(path: String, detail: String)
    case unsupported(path: String, reason: String)

    public var description: String {
        switch self {
        case .decode(let e): return e.description
        case .write(let p, let r): return "\(p): cannot write (\(r))"
        case .exists(let p): return "\(p): output exists (use --overwrite to replace it)"
        case .mismatch(let p, let d): return "\(p): \(d)"
        case .unsupported(let p, let r): return "\(p): \(r)"
        }
    }

    /// A `FailureCategory` raw value.
    public var category: String {
        switch self {
        case .decode(let e): return e.category
        case .write(_, let reason):
            // A full device or quota: "no-space" (free space and rerun), as develop reports it.
            let full = [ENOSPC, EDQUOT].map { String(cString: strerror($0)) }
            return full.contains(where: reason.contains) ? "no-space" : "write"
        case .exists: return "exists"
        case .mismatch: return "verify"
        case .unsupported: return "unsupported"
        }
    }
}

/// Converts any RAW LibRaw reads (and DNGs our decoder reads) into a DNG holding exactly the
/// stored samples, verified after writing.
///
/// - Proprietary RAWs: the whole stored image as LibRaw unpacks it (`raw_image`, no scaling,
///   masked borders included), LibRaw's visible area as ActiveArea, its 2×2 CFA pattern and
///   per-site black levels (BlackLevelRepeatDim 2 2) relative to that origin, `maximum` as
///   WhiteLevel, `cam_mul` as AsShotNeutral, LibRaw's `adobe_coeff` matrix (XYZ D65 → camera)
///   as ColorMatrix1 with CalibrationIlluminant1 = 21 (D65), orientation from `flip`, capture
///   EXIF (make, model, lens, exposure, date) in IFD0.
/// - DNGs: the stored samples from our native decoder and every tag `DNGMetadataReader` reads
///   (colour, opcodes, crops) written again.
///
/// Layout: IFD0 = RGB thumbnail + camera tags + digests, SubIFD 1 = raw (256×256 lossless JPEG
/// tiles, encoded concurrently), SubIFD 2 = JPEG preview, both rendered by `TileRenderer` with the
/// default recipe (orientation not applied: the DNG's Orientation applies to every IFD).
/// DateTime is the capture time (else the input's modification time), so the bytes depend only
/// on the input and the options.
public enum DNGConverter {
    public static func convert(input: String, output: String, options: DNGConvertOptions) throws(DNGConvertError) -> DNGConvertResult {
        let t0 = now()
        let inputBytes: Int
        do { inputBytes = try InputFile.requireRegularFile(input) } catch { throw .decode(error) }
        if !options.overwrite, FileManager.default.fileExists(atPath: output) { throw .exists(path: output) }
        var source = try storedImage(path: input, fileSize: inputBytes, memoryLimit: options.memoryLimit)
        let t1 = now()

        var write = DNGWriteOptions(tileSize: options.tileSize, software: "Darkroom \(DarkroomVersion.string)",
                                    dateTime: source.image.metadata.exif.dateTimeOriginal ?? modificationTime(input),
                                    compression: options.compression.dngCompression)
        write.activeArea = source.activeArea
        write.linearizationTable = source.linearizationTable
        write.threads = options.threads
        write.rawDigests = true
        write.captureTags = true
        if let long = options.previewLongSide {
            let previews = try renderPreviews(source, longSide: long, thumbnailLongSide: options.thumbnailLongSide, path: input)
            write.preview = previews.thumbnail
            write.jpegPreview = previews.jpeg
        }
        if options.embedOriginal {
            write.originalRawFile = DNGOriginalRawFile(name: (input as NSString).lastPathComponent, path: input)
        }
        let t2 = now()

        let temp = AtomicWriter.temporaryPath(beside: output)
        defer { unlink(temp) }
        let written: (legacy: [UInt8]?, new: [UInt8])?
        do { written = try DNGWriter.write(source.image, to: temp, options: write) } catch {
            throw .write(path: output, reason: error.description)
        }
        let t3 = now()
        // What the writer put into IFD0 (write.rawDigests is set); `verifyWritten` recomputes it from the file.
        let digests = written ?? (nil, [])
        if options.verify {
            try verifyWritten(temp, against: source.image, shownAs: output, threads: options.threads)
        }
        let t4 = now()
        let rawBytes = rawDataBytes(temp)
        try publish(temp, as: output, overwrite: options.overwrite)
        let outputBytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        let uncompressed = source.image.pixels.count * 2
        source.image.pixels = []
        let md = source.image.metadata
        let area = source.activeArea ?? PixelRect(x: 0, y: 0, width: source.image.width, height: source.image.height)
        return DNGConvertResult(
            input: input, output: output, inputBytes: inputBytes, outputBytes: outputBytes,
            width: source.image.width, height: source.image.height,
            activeArea: "\(area.width)x\(area.height)+\(area.x)+\(area.y)", samplesPerPixel: source.image.samplesPerPixel,
            uncompressedBytes: uncompressed, compressionRatio: rawBytes > 0 ? Double(uncompressed) / Double(rawBytes) : 0,
            rawDataBytes: rawBytes, rawImageDigest: digests.legacy.map(RawDigest.hex) ?? "", newRawImageDigest: RawDigest.hex(digests.new),
            verified: options.verify, embeddedOriginal: options.embedOriginal,
            decodeMilliseconds: ms(t0, t1), previewMilliseconds: ms(t1, t2), encodeMilliseconds: ms(t2, t3),
            verifyMilliseconds: ms(t3, t4), warnings: md.warnings)
    }

    // MARK: - Source

    /// The whole stored image with its metadata, and the ActiveArea to write (nil: the image is it).
    struct StoredImage {
        var image: RawImage
        var activeArea: PixelRect?
        /// A DNG input's LinearizationTable (the samples are stored values, before it).
        var linearizationTable: [UInt16]?
        /// The active-area crop, linearised, with decode-ready metadata, for rendering previews.
        func activeImage() -> RawImage {
            let a = activeArea ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
            var pixels = RawDecoder.crop(image.pixels, width: image.width, spp: image.samplesPerPixel, to: a)
            if let t = linearizationTable, let last = t.indices.last {
                pixels = pixels.map { t[min(Int($0), last)] }
            }
            return RawImage(width: a.width, height: a.height, samplesPerPixel: image.samplesPerPixel, pixels: pixels, metadata: image.metadata)
        }
    }

    static func storedImage(path: String, fileSize: Int, memoryLimit: Int64?) throws(DNGConvertError) -> StoredImage {
        if let dng = try storedDNGSamples(path: path, memoryLimit: memoryLimit, fileSize: fileSize) {
            var md = RawDecoder.withFallbackProfile(dng.metadata)
            md.fileFormat = "DNG"
            let image = RawImage(width: md.sensorWidth, height: md.sensorHeight, samplesPerPixel: md.samplesPerPixel,
                                 pixels: dng.pixels, metadata: md)
            let full = PixelRect(x: 0, y: 0, width: md.sensorWidth, height: md.sensorHeight)
            return StoredImage(image: image, activeArea: md.activeArea.flatMap { $0 == full ? nil : $0 },
                               linearizationTable: dng.linearizationTable)
        }
        let u: LibRawUnpacked
        do throws(DecodeError) {
            // The same recognition as `develop` (`RawDecoder.libRawUnpacked`).
            u = try RawDecoder.libRawUnpacked(path: path, head: RawDecoder.readHeader(path: path).head, unpack: true,
                                              budget: DecodeBudget(fileSize: fileSize, compression: nil, memoryLimit: memoryLimit))
        } catch { throw .decode(error) }
        // Some LibRaw loaders return zeros past the end of a truncated file: no lossless codec
        // stores under 1/16 byte per sample (the check `RawDecoder.decode` makes).
        let (area, o1) = u.rawWidth.multipliedReportingOverflow(by: u.rawHeight)
        let (samples, o2) = area.multipliedReportingOverflow(by: u.samplesPerPixel)
        if o1 || o2 || fileSize < samples / 16 {
            throw .decode(.truncated(path: path, detail: "\(fileSize) bytes cannot hold a \(u.rawWidth)x\(u.rawHeight) image"))
        }
        var md = RawDecoder.libRawMetadata(u)
        md.uniqueCameraModel = [md.exif.make, md.exif.model].compactMap { $0 }.joined(separator: " ")
        // The precision the lossless JPEG streams declare: enough for WhiteLevel.
        let white = Int(min(max(md.whiteLevel.first ?? 65535, 1), 65535))
        md.bitsPerSample = max(8, UInt16.bitWidth - UInt16(white).leadingZeroBitCount)
        md.warnings = md.warnings.filter { !$0.hasPrefix("no as-shot") }
        let image = RawImage(width: u.rawWidth, height: u.rawHeight, samplesPerPixel: u.samplesPerPixel, pixels: u.pixels, metadata: md)
        let full = PixelRect(x: 0, y: 0, width: u.rawWidth, height: u.rawHeight)
        return StoredImage(image: image, activeArea: u.visible == full ? nil : u.visible, linearizationTable: nil)
    }

    /// A DNG's metadata and every stored sample of its raw IFD (before ActiveArea and opcodes),
    /// from our native decoders; nil when `path` is not a DNG.
    static func storedDNGSamples(path: String, memoryLimit: Int64?, fileSize: Int) throws(DNGConvertError)
        -> (metadata: RawMetadata, pixels: [UInt16], linearizationTable: [UInt16]?)? {
        // The decoder's own test of "is this a DNG" (a TIFF-based RAW without DNGVersion, such
        // as a Nikon Coolscan NEF, is LibRaw's to read, not a corrupt DNG).
        let parsed: (metadata: RawMetadata, layout: DNGRawDataLayout?)
        do throws(DecodeError) {
            guard let dng = try RawDecoder.dngMetadata(bytes: RawDecoder.readHeader(path: path).head, path: path) else { return nil }
            parsed = dng
        } catch { throw .decode(error) }
        let md = parsed.metadata
        guard var layout = parsed.layout else {
            throw .unsupported(path: path, reason: "DNG raw data layout not readable by our decoder")
        }
        do {
            try DecodeBudget(fileSize: fileSize, compression: md.compression, memoryLimit: memoryLimit)
                .check(width: md.sensorWidth, height: md.sensorHeight, samplesPerPixel: md.samplesPerPixel, path: path)
        } catch { throw .decode(error) }
        // The stored values, not the linearised ones: the table is written again as it was.
        var table: [UInt16]?
        if layout.hasLinearizationTable {
            guard let t = layout.linearizationTable, !t.isEmpty, t.count <= 65536 else {
                throw .unsupported(path: path, reason: "unreadable LinearizationTable")
            }
            table = t
            layout.hasLinearizationTable = false
            layout.linearizationTable = nil
        }
        let region = PixelRect(x: 0, y: 0, width: md.sensorWidth, height: md.sensorHeight)
        if UncompressedDNGDecoder.unsupportedReason(layout) == nil {
            do { return (md, try UncompressedDNGDecoder.decode(layout, region: region, threads: 0, path: path), table) } catch { throw .decode(error) }
        }
        if JXLDNGDecoder.unsupportedReason(layout) == nil, JXLDNGDecoder.sampleKind(layout) != .float {
            do throws(DecodeError) {
                guard case .integer(let p) = try JXLDNGDecoder.decode(layout, threads: 0, path: path) else {
                    throw .unsupported(path: path, reason: "floating-point JPEG XL data")
                }
                return (md, p, table)
            } catch { throw .decode(error) }
        }
        if LosslessJPEGDecoder.unsupportedReason(layout) == nil {
            do { return (md, try LosslessJPEGDecoder.decode(layout, region: region, threads: 0, path: path), table) } catch {
                switch error { case .invalidLayout(let e), .invalidData(let e): throw .decode(e) }
            }
        }
        switch layout.compression {
        case 34892:
            // Lossy JPEG: the stored values are an approximation; a DNG written from them would
            // pass the approximation off as the raw data.
            throw .unsupported(path: path, reason: "lossy JPEG DNG (Compression 34892): its raw values are not stored exactly, so no DNG can hold them as they were")
        case 9:
            throw .unsupported(path: path, reason: "GoPro VC-5 DNG (Compression 9): LibRaw cannot unpack it, so its values cannot be copied exactly")
        default:
            throw .unsupported(path: path, reason: "DNG with Compression \(layout.compression) cannot be read sample for sample (uncompressed, lossless JPEG and integer JPEG XL only)")
        }
    }

    // MARK: - Previews

    static func renderPreviews(_ source: StoredImage, longSide: Int, thumbnailLongSide: Int,
                               path: String) throws(DNGConvertError) -> (thumbnail: DNGPreview, jpeg: DNGJPEGPreview) {
        var raw = source.activeImage()
        if raw.metadata.asShotNeutral == nil && raw.metadata.asShotWhiteXY == nil,
           let n = WhiteBalanceEstimator(raw: raw).autoNeutral() {
            raw.metadata.asShotNeutral = [n.x, n.y, n.z]
        }
        var recipe = DevelopRecipe()
        recipe.applyOrientation = false
        recipe.bitsPerSample = 8
        let plan: DevelopPlan
        do { plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: path) } catch {
            throw .unsupported(path: path, reason: "preview: \(error)")
        }
        let rendered = TileRenderer.render(raw, plan: plan)
        guard let big = Thumbnailer.thumbnail(of: rendered, longSide: longSide),
              let small = Thumbnailer.thumbnail(of: rendered, longSide: thumbnailLongSide) else {
            throw .unsupported(path: path, reason: "preview: empty render")
        }
        let image = RenderedImage(width: big.width, height: big.height, bitsPerSample: 8, pixels8: big.pixels,
                                  colorSpaceName: rendered.colorSpaceName, iccProfile: [])
        let jpeg: [UInt8]
        do { jpeg = try JPEGWriter.encode(image, options: JPEGOptions(quality: 90, subsampling: .s420, stripMetadata: true)) } catch {
            throw .unsupported(path: path, reason: "preview JPEG: \(error)")
        }
        return (DNGPreview(width: small.width, height: small.height, rgb: small.pixels),
                DNGJPEGPreview(width: big.width, height: big.height, subsampling: [2, 2], jpeg: jpeg))
    }

    // MARK: - Verify after encode

    /// Decodes `path` with our decoder and compares every stored sample with `image`, and the
    /// digests written with the samples read.
    static func verifyWritten(_ path: String, against image: RawImage, shownAs name: String, threads: Int) throws(DNGConvertError) {
        guard let read = try storedDNGSamples(path: path, memoryLimit: nil, fileSize: Int.max) else {
            throw .mismatch(path: name, detail: "the written file is not a DNG")
        }
        let md = read.metadata
        guard md.sensorWidth == image.width, md.sensorHeight == image.height, md.samplesPerPixel == image.samplesPerPixel else {
            throw .mismatch(path: name, detail: "written \(md.sensorWidth)x\(md.sensorHeight)x\(md.samplesPerPixel), source \(image.width)x\(image.height)x\(image.samplesPerPixel)")
        }
        if let i = firstDifference(read.pixels, image.pixels) {
            let spp = image.samplesPerPixel
            throw .mismatch(path: name, detail: "sample at x \(i / spp % image.width), y \(i / spp / image.width) reads \(read.pixels[i]), source \(image.pixels[i])")
        }
        let check = try DNGVerifier.checkDigests(path: path, pixels: read.pixels, metadata: md, threads: threads)
        if let bad = check.failure { throw .mismatch(path: name, detail: bad) }
    }

    static func firstDifference(_ a: [UInt16], _ b: [UInt16]) -> Int? {
        guard a.count == b.count else { return min(a.count, b.count) }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                if x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count * 2) == 0 { return nil }
                for i in 0..<x.count where x[i] != y[i] { return i }
                return nil
            }
        }
    }

    // MARK: - Files

    /// Gives the verified file its name: rename when replacing, else a hard link that fails if
    /// the name exists (never overwrites).
    static func publish(_ temp: String, as output: String, overwrite: Bool) throws(DNGConvertError) {
        if overwrite {
            guard rename(temp, output) == 0 else { throw .write(path: output, reason: String(cString: strerror(errno))) }
            return
        }
        guard link(temp, output) == 0 else {
            if errno == EEXIST { throw .exists(path: output) }
            throw .write(path: output, reason: String(cString: strerror(errno)))
        }
    }

    /// Bytes of the raw IFD's tiles or strips.
    static func rawDataBytes(_ path: String) -> Int {
        guard let parsed = try? DNGMetadataReader.readForDecoding(contentsOf: path), let layout = parsed.layout else { return 0 }
        return layout.byteCounts.reduce(0, +)
    }

    static func modificationTime(_ path: String) -> String? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return LibRawDecoder.exifDate(s.st_mtim.tv_sec)
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func ms(_ a: UInt64, _ b: UInt64) -> Double { Double(b - a) / 1e6 }
}
