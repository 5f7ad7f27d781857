import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom convert INPUTS... -o OUTDIR`: any RAW LibRaw reads (and DNGs) to a verified DNG.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert RAW files to DNG holding exactly the camera's stored values, verified after writing.",
        discussion: """
        Each input becomes OUTDIR/{dir}/{stem}.dng: the stored samples as LibRaw unpacks them (no \
        scaling; masked borders kept, ActiveArea marks the image), CFA pattern, per-site black and \
        white levels, AsShotNeutral, LibRaw's Adobe D65 matrix as ColorMatrix1 (CalibrationIlluminant1 \
        D65), capture EXIF, RawImageDigest and NewRawImageDigest computed as the DNG SDK does, a JPEG \
        preview and a thumbnail rendered by our pipeline. Raw data is 256×256 lossless-JPEG tiles \
        (or lossless JPEG XL with --compression jxl-lossless: DNG 1.7.1, CFA stored as 2×2 fields, \
        NewRawImageDigest over the compressed tiles as the DNG SDK computes it) encoded \
        concurrently; the bytes do not depend on --jobs or the thread count. Each file is converted \
        in a worker process: one that crashes the decoder, passes --timeout or its memory limit \
        fails alone (category crashed, timeout, memory). With --verify \
        on (default) the written file is decoded again and every sample compared with the source \
        before it takes its name: a file that differs fails and nothing else is removed. A rerun \
        skips outputs recorded as done for the same input and options (manifest in OUTDIR). \
        Exit status: 0 all converted or up to date, 1 some files failed, 2 usage error.
        """)

    @Argument(help: "RAW files, directories or glob patterns.")
    var inputs: [String]

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Flag(name: .shortAndLong, help: "Descend into sub-directories of directory inputs.")
    var recursive = false

    @Option(help: "Raw data storage: ljpeg (lossless JPEG, default), jxl-lossless (lossless JPEG XL, DNG 1.7: smaller, read only by DNG 1.7 readers) or none (uncompressed).")
    var compression: String = "ljpeg"

    @Option(help: "JPEG preview long side in pixels (64…8192), or none (no preview, no thumbnail).")
    var preview: String = "1024"

    @Option(help: "Files converted at once (default: 1; tiles of each file use the remaining cores).")
    var jobs: Int = 1

    @Option(help: "Decode the written DNG and compare every sample with the source: on or off.")
    var verify: String = "on"

    @Flag(name: .customLong("embed-original"), help: "Embed the input file (OriginalRawFileData) for `darkroom extract`.")
    var embedOriginal = false

    @Option(help: "Write a JSON report of every file (SHA-256s, digests, ratios, timings) to this path.")
    var report: String?

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    @Option(help: ArgumentHelp("Memory budget for files in flight (e.g. 2G, 512M).", valueName: "size"))
    var memory: String?

    @Option(help: ArgumentHelp("Per-file time limit in seconds (0: none); a file over it fails with category timeout.", valueName: "seconds"))
    var timeout: Double = 600

    @Option(help: ArgumentHelp("Convert only shard K of N (1-based, by a hash of each input's path relative to its input root, as develop's --shard); auto takes K/N from a SLURM array task, auto/N takes K from JOB_COMPLETION_INDEX (Kubernetes) or PARALLEL_SEQ (GNU parallel).", valueName: "K/N"))
    var shard: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard DNGConvertOptions.Compression(rawValue: compression) != nil else {
            throw ValidationError("--compression must be ljpeg, jxl-lossless or none, not \(compression)")
        }
        if preview != "none" {
            guard let n = Int(preview), (64...8192).contains(n) else { throw ValidationError("--preview must be 64…8192 or none, not \(preview)") }
        }
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be 1…256") }
        guard timeout >= 0, timeout.isFinite, timeout <= 1e9 else { throw ValidationError("--timeout must be 0…1000000000 seconds (0: none)") }
        guard verify == "on" || verify == "off" else { throw ValidationError("--verify must be on or off, not \(verify)") }
        if let memory { guard MemoryGate.parseSize(memory) != nil else { throw ValidationError("--memory: cannot read size \(memory)") } }
        if let shard {
            do throws(BatchError) { _ = try Shard(parsing: shard) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        var config = ConvertConfiguration(inputs: inputs, outputDirectory: outputDirectory)
        config.recursive = recursive
        config.jobs = jobs
        config.reportPath = report
        config.timeoutSeconds = timeout
        config.shard = try shard.map { text throws in
            do throws(BatchError) { return try Shard(parsing: text) } catch { throw ValidationError(error.description) }
        }
        if let memory, let bytes = MemoryGate.parseSize(memory) { config.memoryBudget = bytes }
        config.options.compression = DNGConvertOptions.Compression(rawValue: compression) ?? .ljpeg
        config.options.previewLongSide = preview == "none" ? nil : Int(preview)
        config.options.verify = verify == "on"
        config.options.embedOriginal = embedOriginal
        config.options.overwrite = overwrite
        let quiet = self.quiet
        let result: ConvertReport
        do {
            result = try ConvertRunner(config).run { file in
                switch file.status {
                case "failed": Console.err("darkroom: error: \(file.error ?? file.input)")
                case "skipped": if !quiet { Console.out("skipped \(file.error ?? "\(file.input): not a RAW file")") }
                case "up-to-date": if !quiet { Console.out("up to date \(file.output ?? file.input)") }
                default:
                    guard !quiet, let r = file.result else { return }
                    Console.out(String(format: "%@ → %@ (%.1f → %.1f MB, raw data %.2f:1, %@)", r.input, r.output,
                                       Double(r.inputBytes) / 1e6, Double(r.outputBytes) / 1e6, r.compressionRatio,
                                       r.verified ? "verified" : "not verified"))
                }
            }
        } catch {
            if case .usage(let m) = error { throw ValidationError(m) }
            throw CLIError(error.description)
        }
        if !quiet {
            let t = result.totals
            Console.out(String(format: "%d converted, %d up to date, %d skipped, %d failed in %.2f s (%.1f MB/s, %.1f MP/s)",
                               t.converted, t.upToDate, t.skipped, t.failed, t.seconds, t.megabytesPerSecond, t.megapixelsPerSecond))
        }
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}
