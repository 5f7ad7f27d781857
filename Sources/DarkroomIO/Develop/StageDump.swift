import CTIFF
import DarkroomCore

/// The stage images of the DNG processing model, as the Adobe DNG SDK 1.7.1's
/// `dng_validate -1/-2/-3 NAME FILE` writes them, so Darkroom can be diffed against the reference
/// implementation step by step:
/// - stage 1: the stored raw values of the whole stored image (before OpcodeList1, before the
///   LinearizationTable), as decoded;
/// - stage 2: the active area linearised to 0…65535 (BlackLevel with its repeat pattern and
///   DeltaH/V subtracted, LinearizationTable applied, scaled by 65535 / (WhiteLevel − largest
///   black)), OpcodeList1 and OpcodeList2 applied, 16-bit, one sample per pixel for CFA files;
/// - stage 3: stage 2 demosaiced to camera RGB (not white-balanced) with `recipe.demosaic` —
///   Darkroom's interpolation, not the SDK's — and OpcodeList3 applied.
public enum StageDump {
    /// Why a stage image could not be made, naming the file.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case decode(DecodeError)
        case develop(path: String, reason: String)
        case write(path: String, reason: String)
        case output(AtomicWriter.Failure)

        public var description: String {
            switch self {
            case .decode(let e): return e.description
            case .develop(let p, let r): return "\(p): cannot make the stage image (\(r))"
            case .write(let p, let r): return "\(p): cannot write the stage image (\(r))"
            case .output(let e): return e.description
            }
        }
    }

    /// Stage `stage` (1, 2 or 3) of the RAW/DNG file at `path`. `recipe` supplies the demosaic
    /// of stage 3 and the camera profile the plan needs; opcodes always run (as in dng_validate),
    /// whatever the recipe's opcode settings.
    public static func stageImage(path: String, stage: Int, recipe: DevelopRecipe = DevelopRecipe(),
                                  decode: DecodeOptions = DecodeOptions()) throws(Failure) -> StageImage {
        guard (1...3).contains(stage) else { throw .develop(path: path, reason: "stage \(stage) is not 1, 2 or 3") }
        if stage == 1 { return try stage1(path: path, decode: decode) }
        var options = decode
        options.applyOpcodeList1 = true
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: path, options: options) } catch { throw .decode(error) }
        let plan: DevelopPlan
        do { plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: path) } catch {
            throw .develop(path: path, reason: error.description)
        }
        func list(_ bytes: [UInt8]?, _ name: String) throws(Failure) -> OpcodeList? {
            guard let bytes, !bytes.isEmpty else { return nil }
            do { return try OpcodeList.parse(bytes) } catch { throw .develop(path: path, reason: "\(name): \(error.description)") }
        }
        let list2 = try list(raw.metadata.opcodeList2, "OpcodeList2")
        let two: StageImage
        do { two = try TileRenderer.stage2(raw, plan: plan, opcodeList2: list2) } catch {
            throw .develop(path: path, reason: "OpcodeList2: \(error.description)")
        }
        if stage == 2 { return two }
        let list3 = try list(raw.metadata.opcodeList3, "OpcodeList3")
        do { return try TileRenderer.stage3(two, demosaic: recipe.demosaic, opcodeList3: list3) } catch {
            throw .develop(path: path, reason: "OpcodeList3: \(error.description)")
        }
    }

    /// Stage 1: the whole stored image from the native DNG decoders (the LinearizationTable not
    /// applied); for other files, the decoder's image without OpcodeList1 when ActiveArea is the
    /// whole stored image and there is no LinearizationTable (else unsupported).
    static func stage1(path: String, decode: DecodeOptions) throws(Failure) -> StageImage {
        if let (metadata, layout) = try? DNGMetadataReader.readForDecoding(contentsOf: path), var layout,
           metadata.sensorWidth > 0, metadata.sensorHeight > 0 {
            let stored = PixelRect(x: 0, y: 0, width: layout.width, height: layout.height)
            layout.hasLinearizationTable = false
            layout.linearizationTable = nil
            var pixels: [UInt16]?
            if UncompressedDNGDecoder.unsupportedReason(layout) == nil {
                pixels = try? UncompressedDNGDecoder.decode(layout, region: stored, threads: decode.threads, path: path)
            } else if LosslessJPEGDecoder.unsupportedReason(layout) == nil {
                pixels = try? LosslessJPEGDecoder.decode(layout, region: stored, threads: decode.threads, path: path)
            }
            if let pixels, pixels.count == layout.width * layout.height * layout.samplesPerPixel {
                return StageImage(width: layout.width, height: layout.height, planes: layout.samplesPerPixel,
                                  pixels: pixels, cfa: metadata.cfa?.shifted(dx: -(metadata.activeArea?.x ?? 0), dy: -(metadata.activeArea?.y ?? 0)))
            }
        }
        var options = decode
        options.applyOpcodeList1 = false
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: path, options: options) } catch { throw .decode(error) }
        let md = raw.metadata
        let whole = md.activeArea.map { $0 == PixelRect(x: 0, y: 0, width: md.sensorWidth, height: md.sensorHeight) } ?? true
        guard whole, md.linearizationTableCount == nil, raw.width == md.sensorWidth, raw.height == md.sensorHeight else {
            throw .develop(path: path, reason: "stage 1 needs the whole stored image before linearisation, which only the native uncompressed and lossless-JPEG DNG decoders give")
        }
        return StageImage(width: raw.width, height: raw.height, planes: raw.samplesPerPixel, pixels: raw.pixels, cfa: md.cfa)
    }

    /// The stage image as a TIFF like dng_validate's dumps: 16 bits per sample, greyscale
    /// (min-is-black) for one plane, RGB for three, chunky, uncompressed unless `deflate`.
    public static func tiffBytes(_ image: StageImage, deflate: Bool = true) throws(EncodeError) -> [UInt8] {
        let (w, h, spp) = (image.width, image.height, image.planes)
        guard w > 0, h > 0, spp == 1 || spp == 3, image.pixels.count == w * h * spp else {
            throw .invalidImage(format: "TIFF", reason: "stage image \(w)x\(h)x\(spp) holds \(image.pixels.count) samples")
        }
        do throws(TIFFError) {
            return try stageTIFF(image, deflate: deflate)
        } catch { throw .library(format: "TIFF", call: "libtiff", message: error.description) }
    }

    private static func stageTIFF(_ image: StageImage, deflate: Bool) throws(TIFFError) -> [UInt8] {
        let (w, h, spp) = (image.width, image.height, image.planes)
        let tiff = try LibTIFFWriter.inMemory()
        let rowBytes = w * spp * 2
        let rowsPerStrip = max(1, 65536 / rowBytes)
        try tiff.set(UInt16(TIFFTAG_IMAGEWIDTH), .ints([UInt32(w)]))
        try tiff.set(UInt16(TIFFTAG_IMAGELENGTH), .ints([UInt32(h)]))
        try tiff.set(UInt16(TIFFTAG_BITSPERSAMPLE), .ints([UInt32(16)]))
        try tiff.set(UInt16(TIFFTAG_SAMPLESPERPIXEL), .ints([UInt32(spp)]))
        try tiff.set(UInt16(TIFFTAG_PHOTOMETRIC), .ints([UInt32(UInt16(spp == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB))]))
        try tiff.set(UInt16(TIFFTAG_PLANARCONFIG), .ints([UInt32(PLANARCONFIG_CONTIG)]))
        try tiff.set(UInt16(TIFFTAG_ROWSPERSTRIP), .ints([UInt32(rowsPerStrip)]))
        if deflate {
            try tiff.set(UInt16(TIFFTAG_COMPRESSION), .ints([UInt32(COMPRESSION_ADOBE_DEFLATE)]))
            try tiff.set(UInt16(TIFFTAG_PREDICTOR), .ints([UInt32(PREDICTOR_HORIZONTAL)]))
        } else {
            try tiff.set(UInt16(TIFFTAG_COMPRESSION), .ints([UInt32(COMPRESSION_NONE)]))
        }
        try tiff.set(UInt16(TIFFTAG_SOFTWARE), ascii: "Darkroom \(DarkroomVersion.string)")
        return try image.pixels.withUnsafeBytes { b in
            Result { () throws(TIFFError) in try tiff.finish(strips: b, rowBytes: rowBytes, height: h, rowsPerStrip: rowsPerStrip) }
        }.get()
    }

    /// Makes stage `stage` of `input` and writes it atomically to `output` as a 16-bit TIFF
    /// (`tiffBytes`); an existing `output` is replaced only when `overwrite`.
    public static func write(input: String, stage: Int, output: String, recipe: DevelopRecipe = DevelopRecipe(),
                             decode: DecodeOptions = DecodeOptions(), overwrite: Bool = false) throws(Failure) {
        let image = try stageImage(path: input, stage: stage, recipe: recipe, decode: decode)
        let bytes: [UInt8]
        do { bytes = try tiffBytes(image) } catch { throw .write(path: output, reason: error.description) }
        do { try AtomicWriter.write(bytes, to: output, overwrite: overwrite) } catch { throw .output(error) }
    }
}
