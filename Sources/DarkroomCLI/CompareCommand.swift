import ArgumentParser
import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom compare CHART.dng... --profile A.dcp --profile embedded -o REPORTDIR`: measures a
/// ColorChecker 24 in each file through each camera profile and compares it with reference colours.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Measure a ColorChecker 24 through camera profiles and report ΔE2000 per patch and per profile.",
        discussion: """
            Each file is rendered through each profile on the DNG colour path (linear, no look), the \
            chart's patches are sampled (eroded, robust means) and compared with the reference in \
            CIELAB D50. Writes REPORTDIR/report.json, patches.csv and a CGATS .ti3 per file and illuminant.
            """)

    @Argument(help: "Chart photographs (DNG or RAW).")
    var files: [String] = []

    @Option(name: .long, help: "A camera profile (.dcp), or 'embedded' for the file's own; repeatable (default: embedded).")
    var profile: [String] = []

    @Option(name: .long, help: "Reference colours: colorchecker24 (built-in spectra) or a CGATS .ti3/.cie/.txt file.")
    var reference: String = "colorchecker24"

    @Option(name: .long, help: "Patch-grid corners x1,y1,x2,y2,x3,y3,x4,y4 (top-left of patch 1, clockwise) in the developed image, or auto.")
    var chart: String = "auto"

    @Option(name: .long, help: "Scene illuminant: as-shot, A, D50, D55, D65, D75, F2, F11, a CCT (5000K) or x,y; repeatable.")
    var illuminant: [String] = []

    @Option(name: .long, help: "Exposure normalisation of measured XYZ: none, white (white patch Y), scale (least squares).")
    var normalise: String = "white"

    @Option(name: [.customShort("o"), .customLong("output")], help: "Report directory (created if missing).")
    var output: String?

    @Flag(name: .long, help: "Replace existing report files.")
    var overwrite = false

    @Option(name: .long, help: "Render threads (0 = one per core); the report is the same for any value.")
    var threads: Int = 0

    /// `--chart` (shared with `profile fit`): auto or the four corners.
    static func chartLocation(_ text: String) throws -> ChartLocation {
        guard let location = ChartLocation(parsing: text) else {
            throw ValidationError("--chart: expected auto or eight numbers x1,y1,x2,y2,x3,y3,x4,y4 (got '\(text)')")
        }
        return location
    }

    /// `--illuminant` values (shared with `profile fit`).
    static func illuminants(_ texts: [String]) throws -> [CompareIlluminant] {
        try texts.map { text in
            guard let i = CompareIlluminant(parsing: text) else {
                throw ValidationError("--illuminant: expected as-shot, \(CompareIlluminant.standardNames.joined(separator: ", ")), a CCT 1000…25000 or x,y (got '\(text)')")
            }
            return i
        }
    }

    func options() throws -> CompareOptions {
        guard !files.isEmpty else { throw ValidationError("give one or more chart files") }
        guard let output, !output.isEmpty else { throw ValidationError("-o REPORTDIR is required") }
        var o = CompareOptions(files: files, outputDirectory: output)
        if !profile.isEmpty { o.profiles = profile }
        o.reference = reference
        o.chart = try Self.chartLocation(chart)
        if !illuminant.isEmpty { o.illuminants = try Self.illuminants(illuminant) }
        guard let n = CompareNormalisation(rawValue: normalise.lowercased()) else {
            throw ValidationError("--normalise: expected none, white or scale (got '\(normalise)')")
        }
        o.normalisation = n
        guard (0...1024).contains(threads) else { throw ValidationError("--threads: expected 0…1024 (got \(threads))") }
        o.threads = threads
        o.overwrite = overwrite
        return o
    }

    func validate() throws { _ = try options() }

    func run() throws {
        let o = try options()
        var partial = false
        do throws(CompareError) {
            // An unusable --reference is a usage error, found before any input is read.
            let reference: ChartReference
            do throws(CompareError) { reference = try ChartReference.load(o.reference) } catch { throw .option(error.description) }
            let report = try CompareRunner.run(o, reference: reference)
            let files = try CompareOutput.files(report)
            try CompareOutput.write(files, directory: o.outputDirectory, overwrite: o.overwrite,
                                    inputs: o.files + o.profiles + [o.reference])
            for f in report.failures ?? [] { Console.err("darkroom: error: \(f)") }
            for r in report.ranking {
                let stats = String(format: "mean ΔE2000 %.3f  median %.3f  p90 %.3f  max %.3f", r.mean, r.median, r.p90, r.max)
                Console.out("\(r.illuminant)  \(r.rank). \(r.profile)  \(stats)")
            }
            Console.out("\(o.outputDirectory)/report.json")
            partial = report.failures != nil
        } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(error.exitCode)
        }
        // Some file or profile was left out (its line is above; the report holds the rest).
        if partial { throw ExitCode(1) }
    }
}
