import ArgumentParser
import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom profile`: camera-profile tools (`profile fit`). The listing of a file's profiles
/// stays `darkroom profiles FILE`.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Camera-profile tools: fit a DNG camera profile (.dcp) to chart shots.",
        subcommands: [ProfileFitCommand.self])
}

/// `darkroom profile fit CHART.dng... [--reference ...] [--illuminant ...] -o camera.dcp`.
struct ProfileFitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fit",
        abstract: "Fit ColorMatrix1/2 and ForwardMatrix1/2 of a DNG camera profile to ColorChecker 24 shots under one or two illuminants.",
        discussion: """
            Each chart is measured as `compare` measures it. Per illuminant: ColorMatrix by least squares \
            (XYZ → camera) keeping the illuminant's white on the camera neutral; ForwardMatrix by least \
            squares (white-balanced camera → XYZ D50, FM·(1,1,1) = D50), then refined by Nelder–Mead on \
            the mean CIEDE2000. The lower-CCT illuminant becomes set 1. Writes the .dcp and the fit report \
            NAME.fit.json / NAME.fit.txt (in-sample ΔE2000 per illuminant) next to it. Evaluate the result \
            with `darkroom compare --profile camera.dcp`.
            """)

    @Argument(help: "Chart photographs (DNG or RAW) under one or two illuminants.")
    var files: [String] = []

    @Option(name: .long, help: "Reference colours: colorchecker24 (built-in spectra) or a CGATS .ti3/.cie/.txt file.")
    var reference: String = "colorchecker24"

    @Option(name: .long, help: "Scene illuminant of the files: one for all or one per file in order (as-shot, A, D50, D55, D65, D75, F2, F11, 5000K or x,y).")
    var illuminant: [String] = []

    @Option(name: .long, help: "Patch-grid corners x1,y1,…,x4,y4 in the developed image (the same for every file), or auto.")
    var chart: String = "auto"

    @Option(name: .customLong("name"), help: "ProfileName to write (default: Darkroom fit, MODEL).")
    var profileName: String?

    @Flag(name: .customLong("least-squares-only"), help: "Skip the ΔE2000 refinement (white-preserving least squares only).")
    var leastSquaresOnly = false

    @Flag(name: .customLong("hue-sat-map"), help: "Also fit ProfileHueSatMapData1/2 (18 hues × 3 saturations, regularised least squares on the matrices' residual hue, saturation and value).")
    var hueSatMap = false

    @Flag(name: .customLong("no-forward-matrix"), help: "Fit ColorMatrix1/2 only (camera → XYZ through Bradford, no ForwardMatrix): extrapolates better to far illuminants for strongly non-Luther cameras.")
    var noForwardMatrix = false

    @Option(name: [.customShort("o"), .customLong("output")], help: "The .dcp to write; the fit report goes next to it.")
    var output: String?

    @Flag(name: .long, help: "Replace an existing profile and report.")
    var overwrite = false

    @Option(name: .long, help: "Render threads (0 = one per core); the output is the same for any value.")
    var threads: Int = 0

    func options() throws -> ProfileFitOptions {
        guard !files.isEmpty else { throw ValidationError("give one or more chart files") }
        guard let output, !output.isEmpty else { throw ValidationError("-o camera.dcp is required") }
        guard output.lowercased().hasSuffix(".dcp") else { throw ValidationError("-o: the profile's name must end in .dcp (got '\(output)')") }
        var o = ProfileFitOptions(files: files, outputPath: output)
        o.reference = reference
        o.chart = try CompareCommand.chartLocation(chart)
        if !illuminant.isEmpty {
            o.illuminants = try CompareCommand.illuminants(illuminant)
            guard o.illuminants.count == 1 || o.illuminants.count == files.count else {
                throw ValidationError("--illuminant: give one for all files or one per file (\(files.count)), got \(o.illuminants.count)")
            }
        }
        if let profileName, profileName.isEmpty || profileName.utf8.count > 255 {
            throw ValidationError("--name: expected 1…255 bytes")
        }
        o.profileName = profileName
        o.refine = !leastSquaresOnly
        o.forwardMatrix = !noForwardMatrix
        o.hueSatMap = hueSatMap
        guard (0...1024).contains(threads) else { throw ValidationError("--threads: expected 0…1024 (got \(threads))") }
        o.threads = threads
        o.overwrite = overwrite
        return o
    }

    func validate() throws { _ = try options() }

    func run() throws {
        let o = try options()
        do throws(ProfileFitter.Failure) {
            let report = try ProfileFitter.run(o)
            for s in report.sets {
                let stats = String(format: "in-sample mean ΔE2000 %.3f, max %.3f (least squares %.3f, max %.3f)",
                                   s.fitted.mean, s.fitted.max, s.leastSquares.mean, s.leastSquares.max)
                let table = s.hueSatMap.map { String(format: "; + HueSatMap mean %.3f, max %.3f", $0.mean, $0.max) } ?? ""
                Console.out("set \(s.set) \(s.illuminant): \(stats)\(table)")
            }
            Console.out(o.outputPath)
        } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(error.exitCode)
        }
    }
}
