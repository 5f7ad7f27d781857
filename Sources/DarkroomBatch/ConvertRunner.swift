import DarkroomCore
import DarkroomIO
import Foundation

/// Everything `darkroom convert` needs (validated by the command).
public struct ConvertConfiguration: Sendable {
    public var inputs: [String]
    public var recursive = false
    public var outputDirectory: String
    public var options = DNGConvertOptions()
    /// Files converted at once.
    public var jobs = 1
    /// Working-set budget in bytes for all files in flight (`MemoryGate`).
    public var memoryBudget: Int64 = MemoryGate.physicalMemory / 2
    public var reportPath: String?
    /// Per-file time limit in seconds (0: none): the file's worker is killed, the file fails with
    /// category `timeout`.
    public var timeoutSeconds: Double = 600
    /// The `darkroom` executable run as worker process (`darkroom __convert-worker`).
    public var workerExecutable = "/proc/self/exe"
    /// `--shard K/N`: convert only the inputs of shard K (`Shard`), as develop does.
    public var shard: Shard?
    public init(inputs: [String], outputDirectory: String) { self.inputs = inputs; self.outputDirectory = outputDirectory }

    /// The manifest's recipe key: what changes the output bytes.
    var recipeKey: String {
        let o = options
        return "convert-1:\(o.compression.rawValue):preview=\(o.previewLongSide.map(String.init) ?? "none"):thumb=\(o.thumbnailLongSide):tile=\(o.tileSize):original=\(o.embedOriginal)"
    }
}

/// One input's line in the convert report.
public struct ConvertFileReport: Sendable, Codable, Equatable {
    /// "converted", "up-to-date", "skipped" (not RAW, found in a directory) or "failed".
    public var status: String
    public var input: String
    public var output: String?
    public var error: String?
    public var category: String?
    public var inputSHA256: String?
    public var outputSHA256: String?
    public var result: DNGConvertResult?
}

/// The JSON report of a convert run: options, totals and every file, so an audit needs no rerun.
public struct ConvertReport: Sendable, Codable, Equatable {
    public struct Totals: Sendable, Codable, Equatable {
        public var files = 0, converted = 0, upToDate = 0, skipped = 0, failed = 0
        public var seconds = 0.0
        public var inputMegabytes = 0.0, outputMegabytes = 0.0, megapixels = 0.0
        /// Input MB and megapixels converted per second of wall time.
        public var megabytesPerSecond = 0.0, megapixelsPerSecond = 0.0
    }
    public var schemaVersion = 1
    public var tool = "darkroom convert"
    public var version = DarkroomVersion.string
    public var outputDirectory: String
    public var compression: String
    public var preview: String
    public var verify: Bool
    public var embedOriginal: Bool
    public var tileSize: Int
    public var jobs: Int
    /// `K/N` when this run converted one shard.
    public var shard: String?
    /// A merged report (`darkroom report merge`): the shards it was merged from, `K/N` each.
    public var mergedShards: [String]?
    public var totals = Totals()
    public var files: [ConvertFileReport] = []
    public var exitCode: Int32 { totals.failed > 0 ? 1 : 0 }
}

/// Converts a batch to DNG with the batch engine's pieces: `InputExpander` (files, folders, -r),
/// `OutputNamer` (OUTDIR/{dir}/{stem}.dng, collisions made unique), `Manifest` (resume: an output
/// whose record has the same options and an unchanged input is up to date), `MemoryGate` (files
/// in flight stay within the budget), SHA-256 of inputs and outputs. Each output appears only
/// once verified (`DNGConverter`), so a killed run leaves only complete DNGs; its temporary
/// files are removed by the next run. Each of the `jobs` slots converts its files in a worker
/// process (`ConvertWorker`, reused across files): a file that crashes a decoder, passes
/// `timeoutSeconds` or its memory limit (`BatchRunner.memoryLimit` of its estimate and the budget's
/// share) fails alone with category `crashed`, `timeout` or `memory`, and the slot starts a fresh
/// worker for the next file.
public final class ConvertRunner: @unchecked Sendable {
    public let config: ConvertConfiguration
    private let lock = NSLock()

    public init(_ config: ConvertConfiguration) { self.config = config }

    /// Runs the batch; `progress` gets one line per finished file (serialised).
    public func run(progress: @escaping @Sendable (ConvertFileReport) -> Void = { _ in }) throws(BatchError) -> ConvertReport {
        let start = Date()
        let directory: AtomicWriter.Directory
        do { directory = try AtomicWriter.Directory(path: config.outputDirectory) } catch {
            throw .io("\(config.outputDirectory): cannot use as output directory (\(error.description))")
        }
        let expanded = try InputExpander.expand(config.inputs, recursive: config.recursive, excluding: config.outputDirectory)
        guard !expanded.isEmpty else { throw .usage("no input files found in \(config.inputs.joined(separator: " "))") }
        TempSweeper.sweep(config.outputDirectory)
        let manifest = try Manifest(directory: directory, shard: config.shard)
        let namer: OutputNamer
        do { namer = try OutputNamer(template: OutputNamer.defaultTemplate) } catch { throw error }
        // Names are decided over the whole input list (before sharding), so every shard agrees.
        let allNames = namer.names(for: expanded, exif: { _ in nil }).map { $0 + ".dng" }
        let selected = expanded.indices.filter { config.shard?.contains(relativePath: expanded[$0].relativePath) ?? true }
        let inputs = selected.map { expanded[$0] }, names = selected.map { allNames[$0] }
        if let report = config.reportPath,
           allNames.contains(where: { directory.fullPath($0) == report }) || expanded.contains(where: { $0.path == report }) {
            throw .usage("--report \(report) would replace an input or an output")
        }

        var identities = Set<AtomicWriter.FileIdentity>()
        for i in inputs { if case .regular(_, let id) = InputFingerprint.examine(i.path) { identities.insert(id) } }
        let inputIdentities = identities
        let gate = MemoryGate(budget: config.memoryBudget)
        let box = SlotBox([ConvertFileReport?](repeating: nil, count: inputs.count))
        let next = Counter()
        let jobs = max(1, min(config.jobs, inputs.count))
        // Threads per file: the cores left over by the jobs (tiles and digests of one file).
        var options = config.options
        if options.threads == 0 { options.threads = max(1, ProcessInfo.processInfo.activeProcessorCount / jobs) }
        let opts = options
        let share = config.memoryBudget / Int64(jobs)
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            let slot = ConvertSlot(executable: self.config.workerExecutable)
            defer { slot.finish() }
            while let i = next.take(below: inputs.count) {
                let r = self.convertOne(inputs[i], name: names[i], directory: directory, manifest: manifest, gate: gate,
                                        options: opts, slot: slot, share: share, inputIdentities: inputIdentities)
                box.set(i, r)
                self.lock.lock(); progress(r); self.lock.unlock()
            }
        }
        let reports = box.values
        var report = ConvertReport(outputDirectory: config.outputDirectory, compression: config.options.compression.rawValue,
                                   preview: config.options.previewLongSide.map(String.init) ?? "none",
                                   verify: config.options.verify, embedOriginal: config.options.embedOriginal,
                                   tileSize: config.options.tileSize, jobs: jobs, shard: config.shard?.description)
        report.files = reports.compactMap { $0 }
        var t = ConvertReport.Totals()
        t.files = report.files.count
        for f in report.files {
            switch f.status {
            case "converted":
                t.converted += 1
                if let r = f.result {
                    t.inputMegabytes += Double(r.inputBytes) / 1e6
                    t.outputMegabytes += Double(r.outputBytes) / 1e6
                    t.megapixels += Double(r.width * r.height) / 1e6
                }
            case "up-to-date": t.upToDate += 1
            case "skipped": t.skipped += 1
            default: t.failed += 1
            }
        }
        t.seconds = Date().timeIntervalSince(start)
        if t.seconds > 0 { t.megabytesPerSecond = t.inputMegabytes / t.seconds; t.megapixelsPerSecond = t.megapixels / t.seconds }
        report.totals = t
        if let path = config.reportPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do {
                let data = try encoder.encode(report)
                try AtomicWriter.write([UInt8](data), to: path, overwrite: true)
            } catch { throw .io("\(path): cannot write report (\(error))") }
        }
        return report
    }

    private func convertOne(_ input: BatchInput, name: String, directory: AtomicWriter.Directory, manifest: Manifest,
                            gate: MemoryGate, options: DNGConvertOptions, slot: ConvertSlot, share: Int64,
                            inputIdentities: Set<AtomicWriter.FileIdentity>) -> ConvertFileReport {
        let output = directory.fullPath(name)
        var rep = ConvertFileReport(status: "failed", input: input.path, output: output)
        guard let fp = InputFingerprint.stat(input.path) else {
            rep.error = "\(input.path): no such file"; rep.category = "not-found"; return rep
        }
        // Never onto an input of this run (develop's check: device and inode), whatever --overwrite says.
        if let refusal = directory.outputRefusal(name, inputs: inputIdentities) {
            rep.error = refusal; rep.category = "output-refused"; return rep
        }
        // Resume: the output exists, was recorded done with these options for this input, and is
        // still the file that was written (size and content hash).
        var options = options
        if let record = manifest.output(name), record.state == .done, record.recipe == config.recipeKey,
           record.inputSize == fp.size, record.inputModified == fp.modified, directory.exists(name) {
            if record.outputMatches(directory, name) {
                rep.status = "up-to-date"
                return rep
            }
            // Ours, but replaced or damaged since: redone in place.
            options.overwrite = true
        }
        if case .notRegular(let what) = InputFingerprint.examine(input.path) {
            rep.error = "\(input.path): \(what), not a regular file; not opened"; rep.category = "not-regular"
            if !input.explicit { rep.status = "skipped" }
            return rep
        }
        let job = ConvertWorkerJob(input: input.path, output: output, options: options)
        // The worker estimates the file's working set from its header (no unpacking); it starts
        // once the memory gate admits that much.
        let estimate: Int64
        switch slot.exchange(job, timeout: config.timeoutSeconds, memoryLimit: 0, input: input.path) {
        case .reply(let r):
            guard r.kind == .size, let e = r.estimate else {
                slot.discard()
                rep.error = "\(input.path): the worker process sent an unexpected reply"; rep.category = "crashed"
                return rep
            }
            estimate = e
        case .lost(let category, let message):
            rep.error = message; rep.category = category
            return rep
        }
        _ = gate.acquire(estimate)
        defer { gate.release(estimate) }

        let replacing = directory.exists(name)
        let record = ManifestRecord(input: input.relativePath, format: "dng", recipe: config.recipeKey, inputSize: fp.size,
                                    inputModified: fp.modified, inputHash: "", state: .pending, replacing: replacing,
                                    time: Date().timeIntervalSince1970)
        if options.overwrite || !replacing { try? manifest.set(outputs: [name: record], clearingFailureOf: name) }
        let limit = BatchRunner.memoryLimit(estimate: estimate, share: share)
        switch slot.exchange(WorkerGo(go: true), timeout: config.timeoutSeconds, memoryLimit: limit, input: input.path) {
        case .lost(let category, let message):
            rep.error = message; rep.category = category
            // A killed worker may leave its temporary file: removed now, not at the next run.
            if let pid = slot.lostPID { TempSweeper.sweep((output as NSString).deletingLastPathComponent, onlyPID: pid) }
        case .reply(let r):
            if let result = r.result {
                var done = record
                done.state = .done
                done.inputHash = SHA256.hexOfFile(input.path) ?? ""
                if let digest = OutputDigest.of(directory, name) { done.outputSize = digest.size; done.outputHash = digest.hash }
                try? manifest.set(outputs: [name: done], clearingFailureOf: name)
                rep.status = "converted"
                rep.result = result
                rep.inputSHA256 = done.inputHash
                rep.outputSHA256 = SHA256.hexOfFile(output)
            } else {
                // Not an image: skipped in a folder. Named like a RAW but unreadable: a failure.
                if r.notRaw == true && !input.explicit && !RawFileExtensions.isRaw(path: input.path) { rep.status = "skipped" }
                rep.error = r.error ?? "\(input.path): the worker process gave no result"
                rep.category = r.category ?? "crashed"
            }
        }
        return rep
    }
}

/// One `--jobs` slot's worker process for convert (`ConvertWorker`), started when first needed
/// and after a loss; used by one thread at a time.
final class ConvertSlot {
    private let executable: String
    private var current: WorkerProcess?
    /// The process id of the last worker lost (its temporary files can be removed).
    private(set) var lostPID: Int32?

    init(executable: String) { self.executable = executable }

    enum Exchange {
        case reply(ConvertWorkerReply)
        /// The worker is gone: category and a message naming the input.
        case lost(String, String)
    }

    /// Sends `message` and waits for the reply within `timeout` seconds (0: none) and
    /// `memoryLimit` bytes of resident memory (0: none).
    func exchange<T: Encodable>(_ message: T, timeout: Double, memoryLimit: Int64, input: String) -> Exchange {
        if current == nil {
            switch WorkerProcess.spawn(executable: executable, argument: ConvertWorker.argument) {
            case .success(let w): current = w
            case .failure(let e): return .lost("crashed", "\(input): \(e.description)")
            }
        }
        guard let worker = current else { return .lost("crashed", "\(input): no worker process") }
        guard worker.send(message) else { discard(); return .lost("crashed", "\(input): the worker process is gone") }
        let deadline = timeout > 0 ? Date().timeIntervalSince1970 + timeout : nil
        let outcome = worker.receive(deadline: deadline, memoryLimit: memoryLimit)
        if case .line(let l) = outcome {
            guard let r = try? JSONDecoder().decode(ConvertWorkerReply.self, from: Data(l)) else {
                discard()
                return .lost("crashed", "\(input): the worker process sent an unreadable reply; killed")
            }
            return .reply(r)
        }
        discard()
        guard let lost = worker.loss(outcome, input: input, timeout: timeout, memoryLimit: memoryLimit) else {
            return .lost("interrupted", "\(input): interrupted")
        }
        return .lost(lost.category.rawValue, lost.message)
    }

    func discard() {
        if let w = current { lostPID = w.pid; w.terminate() }
        current = nil
    }

    func finish() {
        current?.finish()
        current = nil
    }
}
