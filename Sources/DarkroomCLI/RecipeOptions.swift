import ArgumentParser
import DarkroomCore
import DarkroomIO

extension OutputColorSpace: ExpressibleByArgument {}
extension DemosaicAlgorithm: ExpressibleByArgument {}
extension ToneCurve.Mode: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension GamutMode: ExpressibleByArgument {}

/// Options shared by `develop`, `explain` and `recipe`: everything that changes pixels. Every
/// option is optional so that a recipe file's value is overridden only by flags actually given
/// (defaults ← recipe file ← flags).
struct RecipeOptions: ParsableArguments {
    @Option(name: .customLong("color-space"), help: "Output colour space: \(OutputColorSpace.allCases.map(\.rawValue).joined(separator: ", ")) (default srgb).")
    var colorSpace: OutputColorSpace?

    @Option(help: "Demosaic algorithm: \(DemosaicAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")) (default \(DemosaicAlgorithm.default.rawValue)).")
    var demosaic: DemosaicAlgorithm?

    @Option(help: ArgumentHelp("White balance: as-shot (default), camera, auto (iterative grey world on near-neutral, unclipped samples), daylight, cloudy, shade, tungsten, fluorescent, flash, KELVIN[,TINT] (e.g. 5500 or 5500,+10; solved through the camera profile), or xy:X,Y.", valueName: "wb"))
    var wb: String?

    @Option(name: .customLong("wb-rect"), help: ArgumentHelp("White balance from a neutral patch x,y,w,h (displayed-image pixels).", valueName: "x,y,w,h"))
    var wbRect: String?

    @Option(name: .customLong("wb-gains"), help: ArgumentHelp("White balance as channel gains r,g,b.", valueName: "r,g,b"))
    var wbGains: String?

    @Option(help: ArgumentHelp("Camera profile (.dcp) to use instead of the file's own.", valueName: "file.dcp"))
    var profile: String?

    @Option(name: .customLong("profile-name"), help: "Use the embedded camera profile with this ProfileName (see `darkroom profiles FILE`).")
    var profileName: String?

    @Flag(inversion: .prefixedNo, help: "Apply the profile's HueSatMap/LookTable/ProfileToneCurve (default on).")
    var profileLook: Bool?

    @Option(help: "Gamut mapping: preserve-hue (default: out-of-gamut colours desaturated toward their luminance) or clip (per-channel clipping).")
    var gamut: GamutMode?

    @Option(help: "Exposure in stops, added to the file's BaselineExposure (default 0).")
    var exposure: Double?

    @Flag(inversion: .prefixedNo, help: "Apply BaselineExposure / BaselineExposureOffset (default on).")
    var baselineExposure: Bool?

    @Option(help: "Tone curve: standard (documented highlight shoulder, default) or linear (pure colorimetric render).")
    var tone: ToneCurve.Mode?

    @Option(name: .customLong("bit-depth"), help: "Bits per sample for TIFF/HEIF output: 8 (default) or 16 (JPEG is always 8).")
    var bitDepth: Int?

    @Flag(inversion: .prefixedNo, help: "Dither 8-bit output (default on; --no-dither rounds to nearest).")
    var dither: Bool?

    @Flag(inversion: .prefixedNo, help: "Apply DefaultCrop (default on).")
    var crop: Bool?

    @Option(help: ArgumentHelp("DNG opcode lists to apply: all (default), none, or e.g. list1,list3.", valueName: "lists"))
    var opcodes: String?

    @Option(name: .customLong("thumbnail-size"), help: "Long side of the embedded thumbnail in pixels (0 = none; default 320).")
    var thumbnailSize: Int?

    @Option(name: .customLong("tile-size"), help: "Tile edge in pixels (16…8192, default 256). Changes speed, never pixels.")
    var tileSize: Int?

    @Option(help: "Worker threads per image (0 = cores ÷ files in flight, the default). Changes speed, never pixels.")
    var threads: Int?

    @Option(help: ArgumentHelp("Read input as a headerless Bayer dump with this CFA order: rggb, grbg, bggr, gbrg.", valueName: "order"))
    var bayer: String?

    @Option(help: "Bayer dump: significant bits per 16-bit little-endian sample.")
    var bits: Int = 14

    @Option(help: ArgumentHelp("Bayer dump: image size WIDTHxHEIGHT.", valueName: "WxH"))
    var size: String?

    @Option(help: "Bayer dump: black level (default 0).")
    var black: Double = 0

    @Option(help: "Bayer dump: white level (default 2^bits - 1).")
    var white: Double?

    @Option(help: "Bayer dump: bytes per row (default width x 2).")
    var stride: Int?

    func validate() throws {
        do { _ = try DevelopRecipe().applying(settings()) } catch { throw ValidationError("--\(error.description)") }
        _ = try decodeOptions()
    }

    /// Only the values given on the command line.
    func settings() -> DevelopRecipe.FileSettings {
        var s = DevelopRecipe.FileSettings()
        s.colorSpace = colorSpace
        s.demosaic = demosaic
        s.wb = wb
        s.wbRect = wbRect
        s.wbGains = wbGains
        s.profile = profile
        s.profileName = profileName
        s.profileLook = profileLook
        s.gamut = gamut
        s.exposure = exposure
        s.baselineExposure = baselineExposure
        s.tone = tone
        s.bitDepth = bitDepth
        s.dither = dither
        s.crop = crop
        s.opcodes = opcodes
        s.thumbnailSize = thumbnailSize
        s.tileSize = tileSize
        s.threads = threads
        return s
    }

    func whiteBalance() throws -> WhiteBalanceSpec {
        do { return try DevelopRecipe.parseWhiteBalance(wb ?? "as-shot") } catch { throw ValidationError("--\(error.description)") }
    }

    func decodeOptions() throws -> DecodeOptions {
        let r = (try? DevelopRecipe().applying(settings())) ?? DevelopRecipe()
        var o = DecodeOptions(applyOpcodeList1: r.applyOpcodes && r.opcodeLists.contains(1))
        if let bayer {
            guard let cfa = CFAPattern(name: bayer) else { throw ValidationError("--bayer must be rggb, grbg, bggr or gbrg") }
            guard let size, let wh = BayerDumpParameters.parseSize(size) else { throw ValidationError("--bayer needs --size WIDTHxHEIGHT") }
            guard (8...16).contains(bits) else { throw ValidationError("--bits must be 8…16") }
            o.bayerDump = BayerDumpParameters(cfa: cfa, bitsPerSample: bits, width: wh.width, height: wh.height,
                                              blackLevel: black, whiteLevel: white, rowStride: stride)
        } else if size != nil {
            throw ValidationError("--size is only meaningful with --bayer")
        }
        return o
    }

    /// Defaults with the given flags applied (no recipe file).
    func recipe() throws -> DevelopRecipe {
        do { return try DevelopRecipe().applying(settings()) } catch { throw ValidationError("--\(error.description)") }
    }
}
