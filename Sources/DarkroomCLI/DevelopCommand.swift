import ArgumentParser
import DarkroomCore
import DarkroomIO
import Dispatch
import Foundation

/// `darkroom develop FILE... -o OUTDIR`
struct DevelopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "develop",
        abstract: "Develop RAW/DNG files (or Bayer dumps) into JPEG, HEIF or TIFF.",
        discussion: """
        Each input FILE becomes OUTDIR/NAME.jpg (or .heic/.tif), NAME being the input's name \
        without extension. Outputs are written atomically; an existing output is never replaced \
        unless --overwrite is given. A file that fails prints one line naming it and the reason \
        on stderr and the others still run; the exit status is 1 if any file failed.
        """)

    @Argument(help: "Input files (DNG, any RAW LibRaw reads, or Bayer dumps with --bayer).")
    var files: [String]

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Option(help: "Output format: jpeg, heif or tiff.")
    var format: OutputFormat = .jpeg

    @Option(help: "Encoder quality 1…100 (default: JPEG 90, HEIF 60).")
    var quality: Int?

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    @Flag(name: .customLong("strip-metadata"), help: "Write no EXIF/XMP/thumbnail (the ICC profile is always embedded).")
    var stripMetadata = false

    @Option(help: "Files developed at once (default 1; each image is tile-parallel anyway).")
    var jobs: Int = 1

    @Option(help: "Write a JSON report of every file's result to this path.")
    var report: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var recipeOptions: RecipeOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one input file") }
        if let q = quality, !(1...100).contains(q) { throw ValidationError("--quality must be 1…100") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be ≥ 1") }
        if format == .jpeg && recipeOptions.bitDepth == 16 { throw ValidationError("JPEG is 8-bit; use --format tiff or heif for --bit-depth 16") }
    }

    func run() throws {
        var recipe = try recipeOptions.recipe()
        let decode = try recipeOptions.decodeOptions()
        var export = ExportOptions()
        export.format = format
        export.quality = quality
        export.overwrite = overwrite
        export.stripMetadata = stripMetadata
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw CLIError("\(outputDirectory): cannot create output directory (\((error as NSError).localizedDescription))")
        }
        if recipe.threads == 0 && jobs > 1 {
            recipe.threads = max(1, ProcessInfo.processInfo.activeProcessorCount / jobs)
        }
        // Two inputs with the same base name would write the same output: refuse before any work.
        var seen: [String: String] = [:]
        for f in files {
            let out = FileDeveloper.outputPath(for: f, outputDirectory: outputDirectory, format: format)
            if let other = seen[out] { throw CLIError("\(f): output \(out) would also be written by \(other)") }
            seen[out] = f
        }
        let results = ResultBox(count: files.count)
        let next = NextIndex()
        let files = self.files, outputDirectory = self.outputDirectory, quiet = self.quiet
        let recipeCopy = recipe
        let exportCopy = export
        DispatchQueue.concurrentPerform(iterations: min(jobs, files.count)) { _ in
            while let i = next.take(below: files.count) {
                let input = files[i]
                let output = FileDeveloper.outputPath(for: input, outputDirectory: outputDirectory, format: exportCopy.format)
                do throws(DevelopFailure) {
                    let r = try FileDeveloper.develop(input: input, output: output, recipe: recipeCopy, export: exportCopy, decode: decode)
                    results.set(i, .success(r))
                    if !quiet {
                        let secs = (r.decodeMilliseconds + r.renderMilliseconds + r.encodeMilliseconds) / 1000
                        Console.out("\(input) → \(output) (\(r.width)x\(r.height), \(r.bytes / 1024) KiB, \(String(format: "%.2f", secs)) s)")
                        for w in r.warnings { Console.err("darkroom: warning: \(input): \(w)") }
                    }
                } catch {
                    results.set(i, .failure(error))
                    Console.err("darkroom: error: \(error.description)")
                }
            }
        }
        let all = results.all
        if let report {
            let entries = zip(files, all).map { f, r in ReportEntry(input: f, result: r) }
            let summary = Report(files: entries.count, succeeded: entries.filter { $0.status == "ok" }.count, entries: entries)
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                let data = try enc.encode(summary)
                try AtomicWriter.write([UInt8](data), to: report, overwrite: true)
            } catch { throw CLIError("\(report): cannot write report (\(error))") }
        }
        if all.contains(where: { if case .failure = $0 { return true } else { return false } }) {
            throw ExitCode(1)
        }
    }
}

struct Report: Codable {
    var files: Int
    var succeeded: Int
    var entries: [ReportEntry]
}

struct ReportEntry: Codable {
    var input: String
    var status: String
    var output: String?
    var error: String?
    var category: String?
    var result: DevelopResult?
    init(input: String, result: Result<DevelopResult, DevelopFailure>?) {
        self.input = input
        switch result {
        case .success(let r): status = "ok"; output = r.output; self.result = r
        case .failure(let e): status = "failed"; error = e.description; category = e.category
        case nil: status = "not-run"
        }
    }
}

/// Thread-safe slots for per-file results.
final class ResultBox: @unchecked Sendable {
    private var slots: [Result<DevelopResult, DevelopFailure>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<DevelopResult, DevelopFailure>) { lock.lock(); slots[i] = r; lock.unlock() }
    var all: [Result<DevelopResult, DevelopFailure>?] { lock.lock(); defer { lock.unlock() }; return slots }
}

final class NextIndex: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func take(below n: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard value < n else { return nil }
        value += 1
        return value - 1
    }
}

/// A fatal CLI error: printed as one line, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

enum Console {
    private static let lock = NSLock()
    static func out(_ s: String) { lock.lock(); print(s); fflush(nil); lock.unlock() }
    static func err(_ s: String) {
        lock.lock()
        FileHandle.standardError.write((s + "\n").data(using: .utf8)!)
        lock.unlock()
    }
}
