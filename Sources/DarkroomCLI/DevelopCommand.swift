import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Dispatch
import Foundation

extension ProgressReporter.Mode: ExpressibleByArgument {}

/// `darkroom develop INPUT... -o OUTDIR`
struct DevelopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "develop",
        abstract: "Develop RAW/DNG files (or Bayer dumps) into JPEG, HEIF or TIFF, in batches.",
        discussion: """
        INPUTs are files, directories (their files; --recursive for sub-folders) and glob \
        patterns. RAW files are recognised by content: a non-RAW file found in a directory is \
        skipped and reported, a non-RAW file named explicitly is a failure. Each input becomes \
        OUTDIR/NAME.jpg (.heic/.tif), NAME from --name (default '{dir}/{stem}': the input's \
        folder below its input root and its name without extension, so equal names from \
        different folders never collide; remaining collisions get -2, -3, …). Names never \
        leave OUTDIR.

        Files run concurrently (--jobs, default one per core) while their estimated working \
        sets fit in --memory; each image's tiles use cores ÷ files-in-flight threads.

        Outputs are written to a temporary file and renamed, so an interrupted run never \
        leaves a partial output and never replaces a good one; --overwrite is explicit. \
        OUTDIR/.darkroom-manifest.json records each output's input content hash (plus size and \
        mtime, checked first) and recipe hash: rerunning the same command skips what is up to \
        date and the inputs that failed before with the same content and recipe (--retry-failed \
        retries them). Ctrl-C stops starting new files and lets running ones finish (again: \
        abort now); the exit status is then 130.

        --shard K/N (1 ≤ K ≤ N) develops only the inputs whose hash of their path relative to \
        their input root falls in shard K, so N machines share one archive without coordinating; \
        --shard auto takes K/N from a SLURM array task (auto/N: K from JOB_COMPLETION_INDEX or \
        PARALLEL_SEQ), and `darkroom report merge` joins the shards' reports into one.

        Each file is developed in a supervised worker process: one that crashes, passes \
        --timeout or its memory limit fails that file only (category crashed, timeout, memory).

        Exit status: 0 every file developed or up to date (non-RAW files in directories \
        skipped), 1 some files failed (this run or before), 2 usage error, 130 interrupted.
        """)

    @Argument(help: "Input files, directories and glob patterns (DNG, any RAW LibRaw reads, or Bayer dumps with --bayer).")
    var inputs: [String]

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Flag(name: .shortAndLong, help: "Descend into sub-directories of directory inputs.")
    var recursive = false

    @Flag(help: "Replace existing outputs and redo everything, even up-to-date files.")
    var overwrite = false

    @Flag(name: .customLong("retry-failed"), help: "Retry inputs that failed before with the same content and recipe.")
    var retryFailed = false

    @OptionGroup var runOptions: RunOptions

    @Option(help: "Write a JSON report of every file's result to this path.")
    var report: String?

    @Option(help: ArgumentHelp("Per-file time limit; a file's worker process is killed after it (0: none).", valueName: "seconds"))
    var timeout: Double = 600

    @Option(help: ArgumentHelp("""
        Instead of developing, write each input's stage image as the DNG SDK's dng_validate -1/-2/-3 \
        defines it, as a 16-bit TIFF OUTDIR/NAME.stageN.tif: 1 the stored values, 2 linearised to \
        0…65535 with OpcodeList1 and OpcodeList2 applied and ActiveArea cropped, 3 demosaiced camera \
        RGB (--demosaic) with OpcodeList3. Inputs must be files.
        """, valueName: "1|2|3"))
    var stage: Int?

    @Option(help: "Log style: auto (progress line on a terminal, else json), progress, json (one object per event on stderr), text.")
    var log: ProgressReporter.Mode = .auto

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var recipeFile: RecipeFileOption
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var recipeOptions: RecipeOptions
    @OptionGroup var bayerOptions: BayerOptions

    /// defaults ← recipe file ← flags.
    func layer() throws -> BatchRecipe {
        try EffectiveRecipe.layer(file: recipeFile.recipe, [recipeOptions, outputOptions, bayerOptions, runOptions])
    }

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard timeout >= 0, timeout.isFinite, timeout <= 1e9 else { throw ValidationError("--timeout must be 0…1000000000 seconds (0: none)") }
        if let stage, !(1...3).contains(stage) { throw ValidationError("--stage: must be 1, 2 or 3 (got \(stage))") }
    }

    func run() throws {
        // The recipe is read and resolved once, before anything else; its errors are usage
        // errors (ValidationError: exit status 2).
        let recipe = try layer()
        let resolved = try EffectiveRecipe.resolve(recipe)
        if let stage { return try writeStages(stage, resolved) }
        // (Whether OpcodeList1 runs follows the effective recipe: FileDeveloper decides it.)
        var config = BatchConfiguration(inputs: inputs, outputDirectory: outputDirectory)
        config.recursive = recursive
        config.recipe = recipe
        config.decode = resolved.decode
        if let jobs = resolved.jobs { config.jobs = jobs }
        if let memory = resolved.memoryBudget { config.memoryBudget = memory }
        config.shard = resolved.shard
        config.overwrite = overwrite
        config.retryFailed = retryFailed
        config.timeoutSeconds = timeout
        config.reportPath = report
        let reporter = ProgressReporter(mode: log, quiet: quiet)
        Interrupt.shared.install(cleanupDirectory: outputDirectory)
        let runner = BatchRunner(configuration: config) { reporter.handle($0) }
        let result: BatchReport
        do { result = try runner.run() } catch {
            reporter.finish()
            if case .usage = error { Console.err("darkroom: error: \(error.description)"); throw ExitCode(2) }
            throw CLIError(error.description)
        }
        if let report {
            let enc = JSONEncoder()
            enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            do {
                let data = try enc.encode(result)
                try AtomicWriter.write([UInt8](data), to: report, overwrite: true)
            } catch { throw CLIError("\(report): cannot write report (\(error))") }
        }
        reporter.summary(result)
        if result.exitCode != 0 { throw ExitCode(result.exitCode) }
    }
}

extension DevelopCommand {
    /// `--stage N`: one 16-bit TIFF per input file (`StageDump`), in-process, one line per failure.
    func writeStages(_ stage: Int, _ resolved: ResolvedRecipe) throws {
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw CLIError("\(outputDirectory): cannot create output directory (\((error as NSError).localizedDescription))")
        }
        var failed = 0
        for input in inputs {
            let stem = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
            let output = (outputDirectory as NSString).appendingPathComponent("\(stem).stage\(stage).tif")
            do throws(StageDump.Failure) {
                try StageDump.write(input: input, stage: stage, output: output, recipe: resolved.develop,
                                    decode: resolved.decode, overwrite: overwrite)
                if !quiet { Console.out("\(input) → \(output)") }
            } catch {
                Console.err("darkroom: error: \(error.description)")
                failed += 1
            }
        }
        if failed > 0 { throw ExitCode(1) }
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
