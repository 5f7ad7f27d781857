import ArgumentParser
import DarkroomCore
import DarkroomIO
import Foundation

extension ConstantColourOptions.Fallback: ExpressibleByArgument {}

/// `darkroom constant-colour --ambient A.dng --flash F.dng -o OUTDIR`
struct ConstantColourCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "constant-colour",
        abstract: "The materials' colour under D65 from a flash / no-flash pair, with a confidence map.",
        discussion: """
        Both frames are linearised to camera RGB (DNG stage 3), the ambient frame's exposure is \
        scaled to the flash frame's (ExposureTime, ISO, FNumber, BaselineExposure), the frames \
        are registered (global translation), the flash-only signal (flash − ambient) gives the \
        light's colour at each pixel, which corrects the ambient frame as if the flash lit it; that \
        is rendered with the flash camera profile and adapted to D65 (README "Constant colour").

        Writes OUTDIR/STEM-constant-colour.jpg (.heic/.tif; STEM = the ambient file's name) with \
        the confidence map as the auxiliary plane urn:org:darkroom:aux:constantcolorconfidence \
        (HEIF and JPEG) and the centre-weighted confidence in XMP \
        (darkroom:ConstantColorConfidence), OUTDIR/STEM-constant-colour.json (the report), and \
        with --fallback always, or auto when the centre-weighted confidence is below \
        --min-confidence, the ordinary render of the ambient frame as OUTDIR/STEM-fallback.jpg.

        The flash profile: --flash-profile FILE.dcp (CalibrationIlluminant Flash (4) or Other \
        (255) with IlluminantData), --flash-xy x,y or --flash-spectrum FILE.csv (the flash \
        file's colour model at that white, or at the spectrum's CIE 1931 white), else the flash \
        file's own profile when its calibration illuminant is Flash or Other.

        Exit status: 0 written, 1 a file failed, 2 usage error.
        """)

    @Option(help: "The frame without flash (RAW/DNG).")
    var ambient: String

    @Option(help: "The frame with flash, same camera and framing.")
    var flash: String

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Option(name: .customLong("flash-profile"), help: ArgumentHelp("A .dcp camera profile calibrated for the flash.", valueName: "file.dcp"))
    var flashProfile: String?

    @Option(name: .customLong("flash-xy"), help: ArgumentHelp("The flash's white chromaticity.", valueName: "x,y"))
    var flashXY: String?

    @Option(name: .customLong("flash-spectrum"), help: ArgumentHelp("The flash's spectrum, CSV lines 'wavelength_nm,power'; its CIE 1931 white is used.", valueName: "file.csv"))
    var flashSpectrum: String?

    @Option(help: ArgumentHelp("Output formats, comma-separated: jpeg, heif, tiff.", valueName: "list"))
    var format: String = "jpeg"

    @Option(help: "Also write the ordinary render of the ambient frame: auto (when the centre-weighted confidence is below --min-confidence), always, never.")
    var fallback: ConstantColourOptions.Fallback = .auto

    @Option(name: .customLong("min-confidence"), help: ArgumentHelp("Centre-weighted confidence (0…1) below which --fallback auto writes the fallback.", valueName: "0…1"))
    var minConfidence: Double = 0.5

    @Option(name: .customLong("max-shift"), help: ArgumentHelp("Largest registration shift searched, pixels (0: no registration).", valueName: "px"))
    var maxShift: Int = 16

    @Option(help: ArgumentHelp("Bits per sample of HEIF/TIFF outputs (JPEG is 8).", valueName: "8|16"))
    var bits: Int = 8

    @Option(help: ArgumentHelp("Worker threads (0: one per core). Never changes the output bytes.", valueName: "n"))
    var threads: Int = 0

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    func formats() throws -> [OutputFormat] {
        var out: [OutputFormat] = []
        for part in format.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let f = OutputFormat(rawValue: name == "jpg" ? "jpeg" : name == "heic" ? "heif" : name == "tif" ? "tiff" : name) else {
                throw ValidationError("--format: '\(part)' is not jpeg, heif or tiff")
            }
            if !out.contains(f) { out.append(f) }
        }
        return out
    }

    func whiteXY() throws -> Chromaticity? {
        guard let flashXY else { return nil }
        let parts = flashXY.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x > 0, y > 0, x + y < 1 else {
            throw ValidationError("--flash-xy: '\(flashXY)' is not a chromaticity x,y (both > 0, x + y < 1)")
        }
        return Chromaticity(x: x, y: y)
    }

    func validate() throws {
        _ = try formats()
        _ = try whiteXY()
        if [flashProfile != nil, flashXY != nil, flashSpectrum != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --flash-profile, --flash-xy and --flash-spectrum")
        }
        guard minConfidence.isFinite, (0...1).contains(minConfidence) else { throw ValidationError("--min-confidence must be 0…1") }
        guard (0...256).contains(maxShift) else { throw ValidationError("--max-shift must be 0…256") }
        guard bits == 8 || bits == 16 else { throw ValidationError("--bits must be 8 or 16") }
        guard (0...256).contains(threads) else { throw ValidationError("--threads must be 0…256") }
    }

    func run() throws {
        var o = ConstantColourOptions()
        o.formats = try formats()
        if let xy = try whiteXY() { o.flashProfile = .whiteXY(xy) }
        if let flashProfile { o.flashProfile = .dcp(path: flashProfile) }
        if let flashSpectrum { o.flashProfile = .spectrum(path: flashSpectrum) }
        o.fallback = fallback
        o.minConfidence = minConfidence
        o.parameters.maxShift = maxShift
        o.bitsPerSample = bits
        o.threads = threads
        o.overwrite = overwrite
        let report: ConstantColourReport
        do {
            report = try ConstantColourDeveloper.run(ambient: ambient, flash: flash, outputDirectory: outputDirectory, options: o)
        } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(1)
        }
        for w in report.warnings { Console.err("darkroom: warning: \(w)") }
        let fractions = report.maskFractions.keys.sorted().map { "\($0) \(String(format: "%.2f", 100 * (report.maskFractions[$0] ?? 0)))%" }
        Console.out("""
            \(ambient) + \(flash)
              exposure ratio     \(String(format: "%.4f", report.exposureRatio)) (ambient frame → its share of the flash frame)
              registration       dx \(report.registration.dx), dy \(report.registration.dy), residual \(String(format: "%.3f", report.registration.residual))
              flash profile      \(report.flashProfile), white xy (\(String(format: "%.4f", report.flashWhiteXY[0])), \(String(format: "%.4f", report.flashWhiteXY[1])))
              flash/ambient      median \(String(format: "%.3f", report.medianFlashRatio))
              masks              \(fractions.joined(separator: ", "))
              confidence         \(String(format: "%.3f", report.centreWeightedConfidence)) centre-weighted (min \(report.minConfidence))
              wrote              \((report.outputs + report.fallbackOutputs).joined(separator: ", "))\(report.fallbackOutputs.isEmpty ? "" : " (fallback)")
            """)
    }
}
