import DarkroomCore
import DarkroomIO
import Foundation

/// Everything a batch run needs (already validated and merged: defaults ← recipe file ← flags).
public struct BatchConfiguration: Sendable {
    public var inputs: [String]
    public var recursive = false
    public var outputDirectory: String
    public var recipe = BatchRecipe()
    public var decode = DecodeOptions()
    /// Files developed at once.
    public var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Working-set budget in bytes for all files in flight.
    public var memoryBudget: Int64 = MemoryGate.physicalMemory / 2
    public var shard: Shard?
    public var overwrite = false
    /// Retry inputs that failed before with the same content and recipe (otherwise they are
    /// reported as `previously-failed` and not retried).
    public var retryFailed = false
    /// Per-file time limit in seconds (`--timeout`; 0: none): the file's worker is killed and the
    /// file fails with category `timeout`. Applies to the probe (reading the file's size) and to
    /// the develop step (decode, render, encode, write) separately; waiting for memory is not
    /// counted.
    public var timeoutSeconds: Double = 600
    /// The `--report` path, refused when it would replace the manifest, an input or an output.
    public var reportPath: String?
    /// The `darkroom` executable run as worker process (`darkroom __batch-worker`).
    public var workerExecutable = "/proc/self/exe"
    /// A run whose only input is one regular file develops it in this process (on a thread, through
    /// the same worker loop), saving the start of a worker process; time and memory limits still
    /// end the file, but a crash ends the run. False: always a worker process.
    public var singleFileInProcess = true
    public init(inputs: [String], outputDirectory: String) { self.inputs = inputs; self.outputDirectory = outputDirectory }
}

/// Progress notifications, delivered on worker threads (serialised by the runner).
public enum BatchEvent: Sendable {
    case planned(total: Int, selected: Int, jobs: Int, threadsPerImage: Int)
    case started(input: String)
    case finished(BatchFileReport, progress: BatchProgress)
}

public struct BatchProgress: Sendable {
    public var done: Int
    public var total: Int
    public var failed: Int
    public var megapixels: Double
    public var elapsed: Double
    public var megapixelsPerSecond: Double { elapsed > 0 ? megapixels / elapsed : 0 }
    /// Seconds left, extrapolated from files finished so far.
    public var eta: Double? { done > 0 && done < total ? elapsed / Double(done) * Double(total - done) : nil }
}

/// Expands the inputs, names the outputs, selects the shard, then develops files concurrently
/// under the memory budget, keeping the manifest and the report.
///
/// Each file is decoded and developed in a supervised worker process (`BatchWorker`), one per
/// `--jobs` slot, reused across files. A worker that dies (a signal), passes `--timeout` or its
/// memory limit is killed and that file fails with category `crashed`, `timeout` or `memory`; the
/// next file gets a fresh worker. The memory limit of a worker developing a file is
/// `max(2 × estimate, --memory ÷ jobs) + 256 MiB` of resident memory (`MemoryGate.estimate`), at
/// most the physical memory.
public final class BatchRunner: @unchecked Sendable {
    public let configuration: BatchConfiguration
    private let onEvent: @Sendable (BatchEvent) -> Void
    private let lock = NSLock()
    private var progress = BatchProgress(done: 0, total: 0, failed: 0, megapixels: 0, elapsed: 0)
    private var start = Date()

    /// Worker processes at most, whatever `--jobs` asks.
    public static let maximumWorkers = 1024

    /// Resident memory every worker may use beyond its file's share (the process itself, libraries).
    public static let workerBaseMemory: Int64 = 256 << 20

    public init(configuration: BatchConfiguration, onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.onEvent = onEvent
    }

    struct Job {
        var input: BatchInput
        var name: String
    }

    public func run() throws(BatchError) -> BatchReport {
        let c = configuration
        start = Date()
        signal(SIGPIPE, SIG_IGN)
        let resolved = try c.recipe.resolved()
        let optionDigest = try Self.optionFileDigest(resolved.recipe, resolved.export)
        let namer = try OutputNamer(template: c.recipe.name ?? OutputNamer.defaultTemplate)
        guard c.jobs >= 1 else { throw .usage("--jobs must be ≥ 1") }
        guard c.timeoutSeconds >= 0, c.timeoutSeconds.isFinite else { throw .usage("--timeout must be ≥ 0 seconds") }
        let registry = WorkerRegistry()
        Interrupt.shared.onAbort { registry.killAll() }
        let inProcess = c.singleFileInProcess && !c.recursive && c.inputs.count == 1 && InputFingerprint.stat(c.inputs[0]) != nil
        let slots = (0..<(inProcess ? 1 : min(c.jobs, Self.maximumWorkers))).map { _ in
            WorkerSlot(executable: c.workerExecutable, registry: registry, inProcess: inProcess)
        }
        slots[0].prestart()    // its start-up overlaps the planning below
        defer { for s in slots { s.finish() } }
        let dir: AtomicWriter.Directory
        do { dir = try AtomicWriter.Directory(path: c.outputDirectory) } catch { throw .io(error.description) }
        let inputs = try InputExpander.expand(c.inputs, recursive: c.recursive, excluding: c.outputDirectory)
        var identities = Set<AtomicWriter.FileIdentity>()
        for i in inputs { if case .regular(_, let id) = InputFingerprint.examine(i.path) { identities.insert(id) } }
        let reportRelative = try checkReport(c.reportPath, directory: dir, inputs: identities)
        // Names are decided over the whole input list (before sharding), so every shard agrees.
        var exifs = [ExifInfo?](repeating: nil, count: inputs.count)
        if namer.needsMetadata { exifs = probeExif(inputs, slots: slots, registry: registry) }
        let names = namer.names(for: inputs) { i in exifs[i] }
        var jobs: [Job] = []
        for (i, input) in inputs.enumerated() where c.shard?.contains(relativePath: input.relativePath) ?? true {
            jobs.append(Job(input: input, name: names[i]))
        }
        TempSweeper.sweep(c.outputDirectory)
        let manifest = try Manifest(directory: dir, shard: c.shard)
        // The option files' bytes decide the output as much as the recipe's values do.
        let recipeHash = optionDigest.map { SHA256.hex(Array((c.recipe.hash(decode: c.decode) + "|files=" + $0).utf8)) }
            ?? c.recipe.hash(decode: c.decode)
        let workers = max(1, min(slots.count, jobs.count))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var recipe = resolved.recipe
        if recipe.threads == 0 { recipe.threads = max(1, cores / workers) }
        let gate = MemoryGate(budget: c.memoryBudget)
        var report = BatchReport(version: DarkroomVersion.string, outputDirectory: c.outputDirectory, recipeHash: recipeHash,
                                 shard: c.shard?.description, jobs: workers, threadsPerImage: recipe.threads,
                                 memoryBudgetMB: Double(c.memoryBudget) / 1048576)
        report.timeoutSeconds = c.timeoutSeconds
        report.recipe = c.recipe.resolvedEntries()
        lock.lock(); progress.total = jobs.count; lock.unlock()
        onEvent(.planned(total: inputs.count, selected: jobs.count, jobs: workers, threadsPerImage: recipe.threads))

        var reserved = [manifest.name, Manifest.lockName]
        if let reportRelative { reserved.append(reportRelative) }
        let ctx = Context(formats: resolved.formats, recipe: recipe, export: resolved.export, recipeHash: recipeHash,
                          manifest: manifest, gate: gate, directory: dir, inputIdentities: identities, reservedNames: reserved,
                          workerShare: c.memoryBudget / Int64(workers))
        let results = SlotBox([BatchFileReport?](repeating: nil, count: jobs.count))
        let next = Counter()
        let group = DispatchGroup()
        let jobsCopy = jobs
        for w in 0..<workers {
            group.enter()
            let slot = slots[w]
            let t = Thread { [self] in
                while let i = next.take(below: jobsCopy.count) {
                    let r = self.process(jobsCopy[i], ctx, slot)
                    results.set(i, r)
                    self.finished(r)
                }
                group.leave()
                registry.wake()
            }
            t.stackSize = 8 << 20
            t.start()
        }
        registry.serve(until: group)
        for s in slots { s.finish() }
        // Temporary files of workers orphaned by an earlier run that died while this one ran.
        TempSweeper.sweep(c.outputDirectory)
        report.files = results.values.compactMap { $0 }
        var t = BatchTotals()
        t.files = report.files.count
        for f in report.files {
            switch f.status {
            case .developed: t.developed += 1; t.megapixels += Double(f.width ?? 0) * Double(f.height ?? 0) / 1e6
            case .upToDate: t.upToDate += 1
            case .skipped: t.skipped += 1
            case .previouslyFailed: t.previouslyFailed += 1
            case .notRun: t.notRun += 1
            case .failed: t.failed += 1
            }
            if f.status == .developed { t.outputs += f.outputs.count }
        }
        t.seconds = Date().timeIntervalSince(start)
        t.imagesPerSecond = t.seconds > 0 ? Double(t.developed) / t.seconds : 0
        t.megapixelsPerSecond = t.seconds > 0 ? t.megapixels / t.seconds : 0
        t.peakMemoryMB = processAndWorkersPeakMemoryMB()
        t.interrupted = Interrupt.shared.requested
        report.totals = t
        return report
    }

    /// Checks every option file once, before any input is read (`--profile` read and its numbers
    /// checked, `--matte` files by kind, size and signature: `OptionFile`), so a bad one is one
    /// usage error instead of a failure per input; returns the SHA-256 of their contents (nil
    /// when there are none): the recipe hash covers the bytes that decide the output, not paths.
    static func optionFileDigest(_ recipe: DevelopRecipe, _ export: ExportOptions) throws(BatchError) -> String? {
        var parts: [String] = []
        if let p = recipe.profilePath {
            do { _ = try ProfileLibrary.readDCP(path: p) } catch { throw .usage("--profile: \(error.description)") }
            do { parts.append("profile=" + SHA256.hex(try OptionFile.read(p, kind: .cameraProfile))) } catch {
                throw .usage("--profile: \(error.description)")
            }
        }
        for m in export.suppliedMattes {
            do { parts.append("matte.\(m.kind.rawValue)=" + SHA256.hex(try OptionFile.read(m.path, kind: .matte))) } catch {
                throw .usage("--matte \(m.kind.rawValue): \(error.description)")
            }
        }
        return parts.isEmpty ? nil : SHA256.hex(Array(parts.joined(separator: "|").utf8))
    }

    /// Refuses a report path that would replace the manifest, its lock or an input (usage error);
    /// returns its path relative to OUTDIR when it lies there (reserved: no output takes it).
    func checkReport(_ path: String?, directory: AtomicWriter.Directory, inputs: Set<AtomicWriter.FileIdentity>) throws(BatchError) -> String? {
        guard let path else { return nil }
        let parent = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        if AtomicWriter.FileIdentity.of(path: parent.isEmpty ? "." : parent) == directory.identity, Manifest.isReserved(name) {
            throw .usage("--report \(path): that is the manifest of the output directory; choose another file")
        }
        if let id = AtomicWriter.FileIdentity.of(path: path), inputs.contains(id) {
            throw .usage("--report \(path): that is an input file; choose another file")
        }
        let abs = URL(fileURLWithPath: path).standardizedFileURL.path
        let root = URL(fileURLWithPath: directory.path).standardizedFileURL.path
        if let rel = AtomicWriter.Directory.relative(abs, below: root) {
            if Manifest.isReserved((rel as NSString).lastPathComponent) && !rel.contains("/") {
                throw .usage("--report \(path): that is the manifest of the output directory; choose another file")
            }
            return rel
        }
        return nil
    }

    /// The EXIF of every input (for `{camera}`/`{date}` names), read by the workers; nil for a
    /// file that cannot be read (it fails later, when developed).
    func probeExif(_ inputs: [BatchInput], slots: [WorkerSlot], registry: WorkerRegistry) -> [ExifInfo?] {
        let c = configuration
        let box = SlotBox([ExifInfo?](repeating: nil, count: inputs.count))
        let next = Counter()
        let group = DispatchGroup()
        for w in 0..<max(1, min(slots.count, inputs.count)) {
            group.enter()
            let slot = slots[w]
            let t = Thread { [self] in
                while let i = next.take(below: inputs.count) {
                    guard case .regular = InputFingerprint.examine(inputs[i].path) else { continue }
                    let job = WorkerJob(kind: .metadata, input: inputs[i].path, explicit: inputs[i].explicit, inputIdentity: nil,
                                        outputDirectory: c.outputDirectory, outputs: [], reservedNames: [],
                                        recipe: DevelopRecipe(), export: .init(ExportOptions()), decode: .init(c.decode))
                    if case .reply(let r) = self.exchange(slot, job, memoryLimit: 0, input: inputs[i].path) { box.set(i, r.exif) }
                }
                group.leave()
                registry.wake()
            }
            t.stackSize = 8 << 20
            t.start()
        }
        registry.serve(until: group)
        return box.values
    }

    struct Context: @unchecked Sendable {
        var formats: [OutputFormat]
        var recipe: DevelopRecipe
        var export: ExportOptions
        var recipeHash: String
        var manifest: Manifest
        var gate: MemoryGate
        var directory: AtomicWriter.Directory
        var inputIdentities: Set<AtomicWriter.FileIdentity>
        var reservedNames: [String]
        /// --memory ÷ workers, bytes.
        var workerShare: Int64
    }

    private func finished(_ r: BatchFileReport) {
        lock.lock()
        progress.done += 1
        if r.status == .failed { progress.failed += 1 }
        if r.status == .developed { progress.megapixels += Double(r.width ?? 0) * Double(r.height ?? 0) / 1e6 }
        progress.elapsed = Date().timeIntervalSince(start)
        let p = progress
        onEvent(.finished(r, progress: p))
        lock.unlock()
    }

    /// The outcome of one message to a worker.
    enum Exchange {
        case reply(WorkerReply)
        /// The worker died, timed out or passed its memory limit (it is gone); `remember`: the
        /// input caused it (a fault signal, timeout, memory), so it is recorded as a failure.
        case lost(FailureCategory, String, remember: Bool)
        /// Killed after an interrupt's grace period.
        case interrupted
    }

    /// Sends `message` to the slot's worker (started when needed) and waits for its reply under
    /// the time limit and `memoryLimit` (bytes, 0: none).
    func exchange<T: Encodable>(_ slot: WorkerSlot, _ message: T, memoryLimit: Int64, input: String) -> Exchange {
        let worker: WorkerProcess
        switch slot.worker() {
        case .success(let w): worker = w
        case .failure(let e): return .lost(.crashed, "\(input): \(e.description)", remember: false)
        }
        let timeout = configuration.timeoutSeconds
        if !worker.send(message) {
            // The worker was already gone (it died between files): one retry with a fresh one.
            slot.discard()
            guard case .success(let fresh) = slot.worker(), fresh.send(message) else {
                slot.discard()
                return .lost(.crashed, "\(input): cannot start a worker process", remember: false)
            }
            return wait(slot, fresh, timeout: timeout, memoryLimit: memoryLimit, input: input)
        }
        return wait(slot, worker, timeout: timeout, memoryLimit: memoryLimit, input: input)
    }

    private func wait(_ slot: WorkerSlot, _ worker: WorkerProcess, timeout: Double, memoryLimit: Int64, input: String) -> Exchange {
        let deadline = timeout > 0 ? Date().timeIntervalSince1970 + timeout : nil
        let outcome = worker.receive(deadline: deadline, memoryLimit: memoryLimit)
        if case .line(let l) = outcome {
            guard let r = try? JSONDecoder().decode(WorkerReply.self, from: Data(l)) else {
                slot.discard()
                return .lost(.crashed, "\(input): the worker process sent an unreadable reply; killed", remember: false)
            }
            return .reply(r)
        }
        slot.discard()
        guard let lost = worker.loss(outcome, input: input, timeout: timeout, memoryLimit: memoryLimit) else { return .interrupted }
        return .lost(lost.category, lost.message, remember: lost.inputFault)
    }

    /// A worker's resident-memory limit while it develops a file: `max(2 × estimate, --memory ÷
    /// jobs) + 256 MiB`, at most the physical memory (bytes; saturating).
    static func memoryLimit(estimate: Int64, share: Int64) -> Int64 {
        let doubled = MemoryGate.saturating(max(estimate, 0), 2)
        let sum = max(doubled, share).addingReportingOverflow(workerBaseMemory)
        return min(sum.overflow ? Int64.max : sum.partialValue, max(MemoryGate.physicalMemory, workerBaseMemory))
    }

    static func seconds(_ s: Double) -> String { String(format: "%g", s) }

    /// One input, isolated: every failure becomes a report entry, never an abort.
    func process(_ job: Job, _ ctx: Context, _ slot: WorkerSlot) -> BatchFileReport {
        let c = configuration
        let input = job.input
        let dir = ctx.directory
        var rep = BatchFileReport(status: .failed, input: input.path, relativePath: input.relativePath)
        if Interrupt.shared.requested { rep.status = .notRun; return rep }
        let stat: InputFingerprint, identity: AtomicWriter.FileIdentity
        switch InputFingerprint.examine(input.path) {
        case .missing:
            rep.error = DecodeError.fileNotFound(path: input.path).description
            rep.category = .notFound
            return rep
        case .notRegular(let what):
            rep.error = "\(input.path): \(what), not a regular file; not opened"
            rep.category = .notRegular
            if !input.explicit { rep.status = .skipped }
            return rep
        case .regular(let f, let id): stat = f; identity = id
        }
        var hashed: InputFingerprint?
        var legacyAccepted = false   // a record with a pre-XXH3 hash matched: rewrite it (ContentHash)
        // Same input content: size+mtime of the same path, else the content hash decides (so a
        // `touch`, or the same archive reached by another path, causes no work).
        func currentHash() -> String? {
            if hashed == nil { hashed = stat.withHash(path: input.path) }
            return hashed?.contentHash
        }
        func same(size: Int64, modified: Double, sha: String, path: String) -> Bool {
            let ok = (path == input.path && size == stat.size && modified == stat.modified)
                || ContentHash.matches(recorded: sha, path: input.path, current: currentHash)
            if ok && ContentHash.isLegacy(sha) { legacyAccepted = true }
            return ok
        }
        let outs = ctx.formats.map { f -> (format: OutputFormat, rel: String, abs: String) in
            let rel = job.name + "." + f.fileExtension
            return (f, rel, dir.fullPath(rel))
        }
        func upgradeLegacyRecords() {
            guard legacyAccepted, let h = currentHash() else { return }
            ctx.manifest.replaceLegacyHashes(outputs: outs.map(\.rel), failure: job.name, with: h)
        }
        rep.outputs = outs.map(\.abs)
        // Failed (or not-RAW) before with the same input and recipe: not retried unless asked.
        if !c.overwrite && !c.retryFailed, let f = ctx.manifest.failure(job.name), f.recipe == ctx.recipeHash,
           same(size: f.inputSize, modified: f.inputModified, sha: f.inputHash, path: f.input) {
            upgradeLegacyRecords()
            rep.status = f.status == FileStatus.skipped.rawValue ? .skipped : .previouslyFailed
            rep.error = f.error; rep.category = FailureCategory(label: f.category); rep.outputs = []
            return rep
        }
        var todo: [(format: OutputFormat, rel: String, abs: String, replace: Bool)] = []
        for o in outs {
            // Never through a symlink below OUTDIR, never onto an input, the manifest or the report.
            if let refusal = dir.outputRefusal(o.rel, inputs: ctx.inputIdentities, reserved: ctx.reservedNames) {
                rep.error = refusal; rep.category = .outputRefused; rep.outputs = []
                return rep
            }
            let exists = dir.exists(o.rel)
            if c.overwrite { todo.append((o.format, o.rel, o.abs, exists)); continue }
            if let r = ctx.manifest.output(o.rel), r.recipe == ctx.recipeHash,
               same(size: r.inputSize, modified: r.inputModified, sha: r.inputHash, path: r.input) {
                // Done means done only while the output is still the file that was written.
                if exists && (r.state == .done || (!r.replacing && OutputCheck.looksComplete(dir, o.rel, format: r.format))),
                   r.outputMatches(dir, o.rel) { continue }
                if exists && r.state == .done { todo.append((o.format, o.rel, o.abs, true)); continue }
                if r.state == .pending && exists { todo.append((o.format, o.rel, o.abs, true)); continue }
            } else if exists, let r = ctx.manifest.output(o.rel), r.state == .done, r.outputHash != nil, r.outputMatches(dir, o.rel),
                      same(size: r.inputSize, modified: r.inputModified, sha: r.inputHash, path: r.input) {
                // Ours, from this input, untouched since (recorded size and content hash), under an
                // earlier recipe or other option-file contents (an edited DCP): stale, so redone in
                // place. Replacing it loses nothing that was not made by this run's own command.
                todo.append((o.format, o.rel, o.abs, true)); continue
            }
            if exists {
                rep.error = "\(o.abs): output exists and was not made from this input and recipe (use --overwrite to replace it)"
                rep.category = .exists
                return rep
            }
            todo.append((o.format, o.rel, o.abs, false))
        }
        upgradeLegacyRecords()
        if todo.isEmpty { rep.status = .upToDate; return rep }

        onEvent(.started(input: input.path))
        var export = ctx.export
        export.overwrite = todo.contains { $0.replace }
        let workerJob = WorkerJob(kind: .develop, input: input.path, explicit: input.explicit, inputIdentity: identity,
                                  outputDirectory: dir.path, outputs: todo.map { .init(format: $0.format, relativePath: $0.rel) },
                                  reservedNames: ctx.reservedNames, recipe: ctx.recipe, export: .init(export), decode: .init(c.decode))
        // Step 1: the worker reads the file's metadata and answers with its size.
        let size: WorkerReply
        switch exchange(slot, workerJob, memoryLimit: Self.workerBaseMemory + ctx.workerShare, input: input.path) {
        case .interrupted: rep.status = .notRun; return rep
        case .lost(let category, let message, let remember):
            rep.error = message; rep.category = category; rep.outputs = []
            if remember { recordFailure(rep, hashed ?? stat.withHash(path: input.path), ctx, key: job.name) }
            return rep
        case .reply(let r): size = r
        }
        if size.kind == .result {
            rep.status = size.status ?? .failed
            rep.error = size.error; rep.category = size.category; rep.outputs = []
            recordFailure(rep, hashed ?? stat.withHash(path: input.path), ctx, key: job.name)
            return rep
        }
        let sixteen = ctx.recipe.bitsPerSample == 16 && ctx.formats.contains { $0 != .jpeg }
        let estimate = MemoryGate.estimate(width: size.width ?? 1, height: size.height ?? 1, fileSize: stat.size, sixteenBit: sixteen,
                                           tileSize: ctx.recipe.tileSize, threads: ctx.recipe.threads)
        rep.estimatedMemoryMB = (Double(estimate) / 1048576 * 10).rounded() / 10
        // Step 2: admitted by the memory gate, the manifest says pending, then the worker develops.
        func abandon(_ status: FileStatus) -> BatchFileReport {
            rep.status = status
            if case .reply = exchange(slot, WorkerGo(go: false), memoryLimit: 0, input: input.path) {} else { slot.discard() }
            return rep
        }
        guard ctx.gate.acquire(estimate, cancelled: { Interrupt.shared.requested }) else { return abandon(.notRun) }
        defer { ctx.gate.release(estimate) }
        if Interrupt.shared.requested { return abandon(.notRun) }
        let full = hashed ?? stat.withHash(path: input.path)
        rep.inputHash = full.contentHash
        func record(_ state: ManifestRecord.State, replacing: (Int) -> Bool) -> [String: ManifestRecord] {
            var d: [String: ManifestRecord] = [:]
            for (k, o) in todo.enumerated() {
                d[o.rel] = ManifestRecord(input: input.path, format: o.format.rawValue, recipe: ctx.recipeHash,
                                          inputSize: full.size, inputModified: full.modified, inputHash: full.contentHash ?? "",
                                          state: state, replacing: replacing(k), time: Date().timeIntervalSince1970)
                if state == .done, let digest = OutputDigest.of(dir, o.rel) {
                    d[o.rel]?.outputSize = digest.size; d[o.rel]?.outputHash = digest.hash
                }
            }
            return d
        }
        // Supplied mattes are checked here, per file, so a missing one fails this file only.
        if let missing = ctx.export.suppliedMattes.first(where: { !FileManager.default.fileExists(atPath: $0.path) }) {
            rep.error = "\(input.path): supplied \(missing.kind.rawValue) matte \(missing.path) does not exist"
            rep.category = .matte; rep.outputs = []
            return abandon(.failed)
        }
        do { try ctx.manifest.set(outputs: record(.pending) { todo[$0].replace }, clearingFailureOf: job.name) } catch {
            rep.error = error.description; rep.category = .manifest
            return abandon(.failed)
        }
        let limit = Self.memoryLimit(estimate: estimate, share: ctx.workerShare)
        let result: WorkerReply
        switch exchange(slot, WorkerGo(go: true), memoryLimit: limit, input: input.path) {
        case .interrupted: rep.status = .notRun; return rep
        case .lost(let category, let message, let remember):
            rep.error = message; rep.category = category
            rep.outputs = outs.filter { dir.exists($0.rel) }.map(\.abs)
            if remember { recordFailure(rep, full, ctx, key: job.name) }
            return rep
        case .reply(let r): result = r
        }
        rep.peakMemoryMB = result.peakMemoryMB
        guard result.status == .developed else {
            rep.status = result.status ?? .failed
            rep.error = result.error; rep.category = result.category
            rep.outputs = (result.writtenOutputs ?? []).map { dir.fullPath($0) }
            recordFailure(rep, full, ctx, key: job.name)
            return rep
        }
        rep.status = .developed
        rep.width = result.outputWidth; rep.height = result.outputHeight; rep.warnings = result.warnings ?? []
        rep.controls = result.controls
        rep.decodeMilliseconds = result.decodeMilliseconds; rep.renderMilliseconds = result.renderMilliseconds
        rep.encodeMilliseconds = result.encodeMilliseconds
        rep.outputs = outs.map(\.abs)
        do { try ctx.manifest.set(outputs: record(.done) { _ in false }, clearingFailureOf: job.name) } catch {
            rep.warnings.append("manifest not updated: \(error.description)")
        }
        return rep
    }

    /// Remembers an input-side failure (not `write`, `no-space`, `exists`, … nor `not-run`), so the
    /// same input and recipe is not retried.
    private func recordFailure(_ rep: BatchFileReport, _ fp: InputFingerprint, _ ctx: Context, key: String) {
        guard rep.status == .failed || rep.status == .skipped, !(rep.category?.isOutputSide ?? false) else { return }
        let f = ManifestFailure(input: rep.input, recipe: ctx.recipeHash, inputSize: fp.size, inputModified: fp.modified,
                                inputHash: fp.contentHash ?? "", status: rep.status.rawValue, error: rep.error ?? "",
                                category: rep.category?.rawValue ?? "", time: Date().timeIntervalSince1970)
        try? ctx.manifest.set(failure: f, for: key)
    }
}

/// One `--jobs` slot's worker process (or in-process worker), started on first use and replaced
/// after it is lost.
final class WorkerSlot: @unchecked Sendable {
    private let executable: String
    private let registry: WorkerRegistry
    private let inProcess: Bool
    private var current: WorkerProcess?
    private let lock = NSLock()

    init(executable: String, registry: WorkerRegistry, inProcess: Bool = false) {
        self.executable = executable; self.registry = registry; self.inProcess = inProcess
    }

    /// Starts the worker now (its start-up then overlaps other work).
    func prestart() { _ = worker() }

    func worker() -> Result<WorkerProcess, BatchError> {
        lock.lock(); defer { lock.unlock() }
        if let current { return .success(current) }
        if inProcess {
            let r = WorkerProcess.startInProcess()
            if case .success(let w) = r { current = w }
            return r
        }
        switch registry.spawn(executable: executable) {
        case .success(let w): current = w; return .success(w)
        case .failure(let e): return .failure(e)
        }
    }

    /// Kills and forgets the worker (after it was lost, or misbehaved).
    func discard() {
        lock.lock(); let w = current; current = nil; lock.unlock()
        if let w { w.terminate(); registry.remove(w.pid) }
    }

    /// Lets an idle worker exit and reaps it.
    func finish() {
        lock.lock(); let w = current; current = nil; lock.unlock()
        if let w { w.finish(); registry.remove(w.pid) }
    }
}

/// The live worker pids (killed when the run is aborted: a second Ctrl-C), and the one place
/// workers are started: on the thread that runs the batch (the thread that created this), which
/// serves requests from the supervisor threads while it waits for them. A worker asks the kernel
/// to kill it when the thread that started it ends (PR_SET_PDEATHSIG), so no worker outlives a
/// supervisor that was killed, even by SIGKILL; starting every worker on the long-lived run
/// thread keeps that from firing when a short-lived supervisor thread ends.
final class WorkerRegistry: @unchecked Sendable {
    private var pids = Set<pid_t>()
    private let cond = NSCondition()
    private var requests: [Request] = []
    private var woken = false
    private let owner = pthread_self()

    final class Request {
        let executable: String
        var result: Result<WorkerProcess, BatchError>?
        init(_ executable: String) { self.executable = executable }
    }

    func remove(_ p: pid_t) { cond.lock(); pids.remove(p); cond.unlock() }

    func killAll() {
        cond.lock(); let all = pids; cond.unlock()
        for p in all { kill(p, SIGKILL) }
        for p in all { var s: Int32 = 0; waitpid(p, &s, 0) }
    }

    /// Starts a worker on the run thread (directly when called there).
    func spawn(executable: String) -> Result<WorkerProcess, BatchError> {
        if pthread_equal(pthread_self(), owner) != 0 { return spawnHere(executable) }
        let r = Request(executable)
        cond.lock()
        requests.append(r)
        cond.broadcast()
        while true {
            if let result = r.result { cond.unlock(); return result }
            cond.wait()
        }
    }

    private func spawnHere(_ executable: String) -> Result<WorkerProcess, BatchError> {
        let result = WorkerProcess.spawn(executable: executable)
        if case .success(let w) = result { cond.lock(); pids.insert(w.pid); cond.unlock() }
        return result
    }

    /// Called by a supervisor thread after it left the group `serve` waits for (so the run thread
    /// notices at once, not at its next 20 ms check).
    func wake() { cond.lock(); woken = true; cond.broadcast(); cond.unlock() }

    /// On the run thread: starts the workers the supervisor threads ask for until `group` is done.
    func serve(until group: DispatchGroup) {
        while true {
            cond.lock()
            if requests.isEmpty && !woken { _ = cond.wait(until: Date().addingTimeInterval(0.02)) }
            woken = false
            let pending = requests
            requests = []
            cond.unlock()
            for r in pending {
                let result = spawnHere(r.executable)
                cond.lock(); r.result = result; cond.broadcast(); cond.unlock()
            }
            // A thread of the group waiting for a worker keeps the group from finishing.
            if pending.isEmpty && group.wait(timeout: .now()) == .success { return }
        }
    }
}

/// Thread-safe array slots.
final class SlotBox<T>: @unchecked Sendable {
    private var slots: [T]
    private let lock = NSLock()
    init(_ initial: [T]) { slots = initial }
    func set(_ i: Int, _ v: T) { lock.lock(); slots[i] = v; lock.unlock() }
    var values: [T] { lock.lock(); defer { lock.unlock() }; return slots }
}

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func take(below n: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard value < n else { return nil }
        value += 1
        return value - 1
    }
}
