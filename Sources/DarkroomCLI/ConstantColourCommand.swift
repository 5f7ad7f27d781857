import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Foundation

extension ConstantColourOptions.Fallback: ExpressibleByArgument {}

/// `darkroom constant-colour --ambient A.dng --flash F.dng -o OUTDIR`, or `--pairs pairs.csv`
/// for many pairs, `--recipe FILE.yaml` for the settings, `--explain` to print without writing.
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

        Many pairs: --pairs pairs.csv, one 'ambient,flash[,name]' line per pair (paths relative \
        to the CSV's folder; name = the outputs' STEM, default the ambient file's name; '#' \
        comments and an 'ambient,…' header skipped). Each pair runs on its own: a bad pair prints \
        one error line and the others are still done (exit 1 if any failed). \
        OUTDIR/constant-colour-report.json lists every pair with its status, error, \
        centre-weighted confidence, fallback and outputs.

        --recipe FILE.yaml: the settings as a YAML mapping whose keys are the flags' names \
        (flash-profile, flash-xy, flash-spectrum, format, fallback, min-confidence, max-shift, \
        bits, threads, overwrite); flags given on the command line override it. Relative \
        paths in it are taken from the recipe's folder.

        --explain: solve the pair and print what the method found (exposure ratio, flash \
        profile and its matrix, registration shift and residual, flash/ambient ratio, the masks' \
        fractions, predicted error, confidence) without writing anything.

        Exit status: 0 written, 1 a file failed, 2 usage error.
        """)

    @Option(help: "The frame without flash (RAW/DNG).")
    var ambient: String?

    @Option(help: "The frame with flash, same camera and framing.")
    var flash: String?

    @Option(help: ArgumentHelp("Many pairs: a CSV of 'ambient,flash[,name]' lines (instead of --ambient/--flash).", valueName: "pairs.csv"))
    var pairs: String?

    @Option(help: ArgumentHelp("Settings as YAML, keys = these flags' names; flags override it.", valueName: "FILE.yaml"))
    var recipe: String?

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String?

    @Flag(help: "Print what the method finds for the pair (ratio, profile, registration, masks, confidence); write nothing.")
    var explain = false

    @Option(name: .customLong("flash-profile"), help: ArgumentHelp("A .dcp camera profile calibrated for the flash.", valueName: "file.dcp"))
    var flashProfile: String?

    @Option(name: .customLong("flash-xy"), help: ArgumentHelp("The flash's white chromaticity.", valueName: "x,y"))
    var flashXY: String?

    @Option(name: .customLong("flash-spectrum"), help: ArgumentHelp("The flash's spectrum, CSV lines 'wavelength_nm,power'; its CIE 1931 white is used.", valueName: "file.csv"))
    var flashSpectrum: String?

    @Option(help: ArgumentHelp("Output formats, comma-separated: jpeg, heif, tiff (default jpeg).", valueName: "list"))
    var format: String?

    @Option(help: "Also write the ordinary render of the ambient frame: auto (default; when the centre-weighted confidence is below --min-confidence), always, never.")
    var fallback: ConstantColourOptions.Fallback?

    @Option(name: .customLong("min-confidence"), help: ArgumentHelp("Centre-weighted confidence (0…1) below which --fallback auto writes the fallback (default 0.5).", valueName: "0…1"))
    var minConfidence: Double?

    @Option(name: .customLong("max-shift"), help: ArgumentHelp("Largest registration shift searched, pixels (0: no registration; default 16).", valueName: "px"))
    var maxShift: Int?

    @Option(help: ArgumentHelp("Bits per sample of HEIF/TIFF outputs (JPEG is 8; default 8).", valueName: "8|16"))
    var bits: Int?

    @Option(help: ArgumentHelp("Worker threads (0: one per core, the default). Never changes the output bytes.", valueName: "n"))
    var threads: Int?

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    /// The settings after defaults ← recipe ← flags.
    struct Settings {
        var flashProfile: String?, flashXY: String?, flashSpectrum: String?
        var format = "jpeg"
        var fallback = ConstantColourOptions.Fallback.auto
        var minConfidence = 0.5
        var maxShift = 16
        var bits = 8
        var threads = 0
        var overwrite = false
    }

    /// The recipe keys (the flags' names).
    static let recipeKeys = ["flash-profile", "flash-xy", "flash-spectrum", "format", "fallback", "min-confidence",
                             "max-shift", "bits", "threads", "overwrite"]

    /// Reads `--recipe` (the shared safe YAML reader: regular file, ≤ 1 MiB, no anchors) into settings.
    static func settings(recipe path: String) throws -> Settings {
        let entries: [(key: String, value: RecipeRawValue)]
        do { entries = try RecipeFile.pairs(path: path) } catch { throw ValidationError(error.description) }
        var s = Settings()
        let folder = (path as NSString).deletingLastPathComponent
        func file(_ v: String) -> String { v.hasPrefix("/") || folder.isEmpty ? v : (folder as NSString).appendingPathComponent(v) }
        for (key, value) in entries {
            let text: String
            switch value {
            case .text(let t): text = t
            case .flag(let b): text = b ? "true" : "false"
            case .sequence(let items) where key == "format": text = items.joined(separator: ",")
            default: throw ValidationError("\(path): \(key): must be a plain value")
            }
            func number<T: LosslessStringConvertible>(_: T.Type) throws -> T {
                guard let v = T(text.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("\(path): \(key): '\(text)' is not a number") }
                return v
            }
            switch key {
            case "flash-profile": s.flashProfile = file(text)
            case "flash-xy": s.flashXY = text
            case "flash-spectrum": s.flashSpectrum = file(text)
            case "format": s.format = text
            case "fallback":
                guard let f = ConstantColourOptions.Fallback(rawValue: text) else { throw ValidationError("\(path): fallback: '\(text)' is not auto, always or never") }
                s.fallback = f
            case "min-confidence": s.minConfidence = try number(Double.self)
            case "max-shift": s.maxShift = try number(Int.self)
            case "bits": s.bits = try number(Int.self)
            case "threads": s.threads = try number(Int.self)
            case "overwrite":
                guard let b = ["true": true, "yes": true, "false": false, "no": false][text.lowercased()] else {
                    throw ValidationError("\(path): overwrite: '\(text)' is not true or false")
                }
                s.overwrite = b
            default: throw ValidationError("\(path): unknown key '\(key)' (keys: \(recipeKeys.joined(separator: ", ")))")
            }
        }
        return s
    }

    func effective() throws -> Settings {
        var s = try recipe.map(Self.settings(recipe:)) ?? Settings()
        if flashProfile != nil || flashXY != nil || flashSpectrum != nil {
            // A flash source on the command line replaces the recipe's, whichever kind.
            s.flashProfile = flashProfile; s.flashXY = flashXY; s.flashSpectrum = flashSpectrum
        }
        if let format { s.format = format }
        if let fallback { s.fallback = fallback }
        if let minConfidence { s.minConfidence = minConfidence }
        if let maxShift { s.maxShift = maxShift }
        if let bits { s.bits = bits }
        if let threads { s.threads = threads }
        if overwrite { s.overwrite = true }
        return s
    }

    static func formats(_ format: String) throws -> [OutputFormat] {
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

    static func whiteXY(_ flashXY: String?) throws -> Chromaticity? {
        guard let flashXY else { return nil }
        let parts = flashXY.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x > 0, y > 0, x + y < 1 else {
            throw ValidationError("--flash-xy: '\(flashXY)' is not a chromaticity x,y (both > 0, x + y < 1)")
        }
        return Chromaticity(x: x, y: y)
    }

    func validate() throws {
        if pairs != nil {
            guard ambient == nil, flash == nil else { throw ValidationError("give either --pairs or --ambient and --flash") }
            guard !explain else { throw ValidationError("--explain takes one pair (--ambient and --flash), not --pairs") }
        } else {
            guard ambient != nil, flash != nil else { throw ValidationError("give --ambient and --flash (or --pairs)") }
        }
        if !explain, outputDirectory == nil { throw ValidationError("give the output directory (-o)") }
        if [flashProfile != nil, flashXY != nil, flashSpectrum != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --flash-profile, --flash-xy and --flash-spectrum")
        }
        let s = try effective()
        _ = try Self.formats(s.format)
        _ = try Self.whiteXY(s.flashXY)
        if [s.flashProfile != nil, s.flashXY != nil, s.flashSpectrum != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of flash-profile, flash-xy and flash-spectrum")
        }
        guard s.minConfidence.isFinite, (0...1).contains(s.minConfidence) else { throw ValidationError("--min-confidence must be 0…1") }
        guard (0...256).contains(s.maxShift) else { throw ValidationError("--max-shift must be 0…256") }
        guard s.bits == 8 || s.bits == 16 else { throw ValidationError("--bits must be 8 or 16") }
        guard (0...256).contains(s.threads) else { throw ValidationError("--threads must be 0…256") }
    }

    func options() throws -> ConstantColourOptions {
        let s = try effective()
        var o = ConstantColourOptions()
        o.formats = try Self.formats(s.format)
        if let xy = try Self.whiteXY(s.flashXY) { o.flashProfile = .whiteXY(xy) }
        if let p = s.flashProfile { o.flashProfile = .dcp(path: p) }
        if let p = s.flashSpectrum { o.flashProfile = .spectrum(path: p) }
        o.fallback = s.fallback
        o.minConfidence = s.minConfidence
        o.parameters.maxShift = s.maxShift
        o.bitsPerSample = s.bits
        o.threads = s.threads
        o.overwrite = s.overwrite
        return o
    }

    func run() throws {
        let o = try options()
        try Self.checkFlashFile(o.flashProfile)
        if let pairs {
            try runPairs(pairs, options: o)
            return
        }
        guard let ambient, let flash else { throw ValidationError("give --ambient and --flash (or --pairs)") }
        if explain {
            try explainPair(ambient: ambient, flash: flash, options: o)
            return
        }
        let report: ConstantColourReport
        do {
            report = try ConstantColourDeveloper.run(ambient: ambient, flash: flash, outputDirectory: outputDirectory ?? ".", options: o)
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

    /// `--flash-profile` / `--flash-spectrum` read and checked once, before any pair: a bad one
    /// is a usage error (one line, exit 2), not a failure per pair.
    static func checkFlashFile(_ profile: ConstantColourOptions.FlashProfile) throws {
        let problem: String?
        switch profile {
        case .dcp(let path):
            do { _ = try ProfileLibrary.readDCP(path: path); problem = nil } catch { problem = "--flash-profile: \(error.description)" }
        case .spectrum(let path):
            do { _ = try FlashSpectrum.white(path: path); problem = nil } catch { problem = "--flash-spectrum: \(error.description)" }
        default: problem = nil
        }
        if let problem {
            Console.err("darkroom: error: \(problem)")
            throw ExitCode(2)
        }
    }

    /// `--pairs`: every pair in turn, one error line per failed pair, exit 1 if any failed.
    func runPairs(_ file: String, options o: ConstantColourOptions) throws {
        let list: [ConstantColourBatch.Pair]
        do { list = try ConstantColourBatch.pairs(path: file) } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(2)
        }
        let report: ConstantColourBatch.Report
        do {
            report = try ConstantColourBatch.run(pairsFile: file, pairs: list, outputDirectory: outputDirectory ?? ".", options: o) { line in
                Console.err("darkroom: error: \(line)")
            }
        } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(1)
        }
        for e in report.pairs where e.status == "done" {
            Console.out("\(e.name): confidence \(String(format: "%.3f", e.centreWeightedConfidence ?? 0))\(e.fallback ? " (fallback written)" : ""), \(e.outputs.joined(separator: ", "))")
        }
        Console.out("\(report.done) done, \(report.failed) failed; report \(((outputDirectory ?? ".") as NSString).appendingPathComponent("constant-colour-report.json"))")
        if report.failed > 0 { throw ExitCode(1) }
    }

    /// `--explain`: solve the pair, print, write nothing.
    func explainPair(ambient: String, flash: String, options o: ConstantColourOptions) throws {
        let solved: ConstantColourDeveloper.Solved
        do { solved = try ConstantColourDeveloper.solve(ambient: ambient, flash: flash, options: o) } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(1)
        }
        for w in solved.warnings { Console.err("darkroom: warning: \(w)") }
        Console.out(ConstantColourDeveloper.explanation(solved, options: o))
    }
}
