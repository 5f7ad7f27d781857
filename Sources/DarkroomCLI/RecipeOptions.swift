import ArgumentParser
import DarkroomCore
import DarkroomIO

extension OutputColorSpace: ExpressibleByArgument {}
extension DemosaicAlgorithm: ExpressibleByArgument {}
extension ToneCurve.Mode: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}

/// Options shared by `develop` and `explain`: everything that changes pixels.
struct RecipeOptions: ParsableArguments {
    @Option(name: .customLong("color-space"), help: "Output colour space: \(OutputColorSpace.allCases.map(\.rawValue).joined(separator: ", ")).")
    var colorSpace: OutputColorSpace = .srgb

    @Option(help: "Demosaic algorithm: \(DemosaicAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")) (default \(DemosaicAlgorithm.default.rawValue)).")
    var demosaic: DemosaicAlgorithm = .default

    @Option(help: ArgumentHelp("White balance: as-shot, KELVIN[,TINT] (e.g. 5500 or 5500,+10), or xy:X,Y.", valueName: "wb"))
    var wb: String = "as-shot"

    @Option(help: "Exposure in stops, added to the file's BaselineExposure.")
    var exposure: Double = 0

    @Flag(name: .customLong("no-baseline-exposure"), help: "Ignore BaselineExposure / BaselineExposureOffset.")
    var noBaselineExposure = false

    @Option(help: "Tone curve: standard (documented highlight shoulder) or linear (pure colorimetric render).")
    var tone: ToneCurve.Mode = .standard

    @Option(name: .customLong("bit-depth"), help: "Bits per sample for TIFF/HEIF output: 8 or 16 (JPEG is always 8).")
    var bitDepth: Int = 8

    @Flag(name: .customLong("no-dither"), help: "Round 8-bit output to nearest instead of dithering it.")
    var noDither = false

    @Flag(name: .customLong("no-crop"), help: "Do not apply DefaultCrop.")
    var noCrop = false

    @Flag(name: .customLong("no-opcodes"), help: "Do not apply OpcodeList1/2/3.")
    var noOpcodes = false

    @Option(name: .customLong("thumbnail-size"), help: "Long side of the embedded thumbnail in pixels (0 = none).")
    var thumbnailSize: Int = 320

    @Option(name: .customLong("tile-size"), help: "Tile edge in pixels (16…8192). Changes speed, never pixels.")
    var tileSize: Int = 256

    @Option(help: "Worker threads per image (0 = one per core). Changes speed, never pixels.")
    var threads: Int = 0

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
        guard bitDepth == 8 || bitDepth == 16 else { throw ValidationError("--bit-depth must be 8 or 16") }
        guard (16...8192).contains(tileSize) else { throw ValidationError("--tile-size must be 16…8192") }
        guard threads >= 0 else { throw ValidationError("--threads must be ≥ 0") }
        guard thumbnailSize >= 0 else { throw ValidationError("--thumbnail-size must be ≥ 0") }
        guard exposure.isFinite, abs(exposure) <= 10 else { throw ValidationError("--exposure must be within ±10 stops") }
        _ = try whiteBalance()
        _ = try decodeOptions()
    }

    func whiteBalance() throws -> WhiteBalanceSpec {
        let s = wb.lowercased()
        if s == "as-shot" || s == "asshot" { return .asShot }
        if s.hasPrefix("xy:") {
            let p = s.dropFirst(3).split(separator: ",").compactMap { Double($0) }
            guard p.count == 2, p.allSatisfy({ $0 > 0 && $0 < 1 }) else { throw ValidationError("--wb xy:X,Y needs two chromaticities in (0, 1)") }
            return .whiteXY(Chromaticity(x: p[0], y: p[1]))
        }
        let p = s.split(separator: ",").map { Double($0.replacingOccurrences(of: "+", with: "")) }
        guard (1...2).contains(p.count), let k = p[0], (1500...50000).contains(k) else {
            throw ValidationError("--wb must be as-shot, KELVIN[,TINT] (1500…50000 K) or xy:X,Y")
        }
        let tint = p.count == 2 ? p[1] : 0
        guard let tint, abs(tint) <= 150 else { throw ValidationError("--wb tint must be within ±150") }
        return .temperature(kelvin: k, tint: tint)
    }

    func decodeOptions() throws -> DecodeOptions {
        var o = DecodeOptions(applyOpcodeList1: !noOpcodes)
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

    func recipe() throws -> DevelopRecipe {
        var r = DevelopRecipe()
        r.colorSpace = colorSpace
        r.demosaic = demosaic
        r.whiteBalance = try whiteBalance()
        r.exposureStops = exposure
        r.applyBaselineExposure = !noBaselineExposure
        r.tone = tone
        r.bitsPerSample = bitDepth
        r.applyDefaultCrop = !noCrop
        r.dither = !noDither
        r.applyOpcodes = !noOpcodes
        r.thumbnailSize = thumbnailSize
        r.tileSize = tileSize
        r.threads = threads
        return r
    }
}
