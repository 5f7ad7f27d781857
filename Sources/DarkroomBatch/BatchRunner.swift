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
public final class BatchRunner: @unchecked Sendable {
    public let configuration: BatchConfiguration
    private let onEvent: @Sendable (BatchEvent) -> Void
    private let lock = NSLock()
    private var progress = BatchProgress(done: 0, total: 0, failed: 0, megapixels: 0, elapsed: 0)
    private var start = Date()

    public init(configuration: BatchConfiguration, onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.onEvent = onEvent
    }

    struct Job {
        var input: BatchInput
        var name: String
        var metadata: Result<RawMetadata, DecodeError>?
    }

    public func run() throws(BatchError) -> BatchReport {
        let c = configuration
        start = Date()
        let resolved = try c.recipe.resolved()
        let namer = try OutputNamer(template: c.recipe.name ?? OutputNamer.defaultTemplate)
        guard c.jobs >= 1 else { throw .usage("--jobs must be ≥ 1") }
        do { try FileManager.default.createDirectory(atPath: c.outputDirectory, withIntermediateDirectories: true) } catch {
            throw .io("\(c.outputDirectory): cannot create output directory (\((error as NSError).localizedDescription))")
        }
        let inputs = try InputExpander.expand(c.inputs, recursive: c.recursive, excluding: c.outputDirectory)
        // Names are decided over the whole input list (before sharding), so every shard agrees.
        var metadata = [Result<RawMetadata, DecodeError>?](repeating: nil, count: inputs.count)
        if namer.needsMetadata {
            let box = SlotBox(metadata)
            DispatchQueue.concurrentPerform(iterations: inputs.count) { i in
                box.set(i, Result { () throws(DecodeError) in try RawDecoder.metadata(path: inputs[i].path, options: c.decode) })
            }
            metadata = box.values
        }
        let names = namer.names(for: inputs) { i in try? metadata[i]?.get().exif }
        var jobs: [Job] = []
        for (i, input) in inputs.enumerated() where c.shard?.contains(relativePath: input.relativePath) ?? true {
            jobs.append(Job(input: input, name: names[i], metadata: metadata[i]))
        }
        TempSweeper.sweep(c.outputDirectory)
        let manifest = Manifest(directory: c.outputDirectory, shard: c.shard)
        let recipeHash = c.recipe.hash(decode: c.decode)
        let workers = max(1, min(c.jobs, jobs.count))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var recipe = resolved.recipe
        if recipe.threads == 0 { recipe.threads = max(1, cores / workers) }
        let gate = MemoryGate(budget: c.memoryBudget)
        var report = BatchReport(version: DarkroomVersion.string, outputDirectory: c.outputDirectory, recipeHash: recipeHash,
                                 shard: c.shard?.description, jobs: workers, threadsPerImage: recipe.threads,
                                 memoryBudgetMB: Double(c.memoryBudget) / 1048576)
        lock.lock(); progress.total = jobs.count; lock.unlock()
        onEvent(.planned(total: inputs.count, selected: jobs.count, jobs: workers, threadsPerImage: recipe.threads))

        let ctx = Context(formats: resolved.formats, recipe: recipe, export: resolved.export, recipeHash: recipeHash,
                          manifest: manifest, gate: gate)
        let results = SlotBox([BatchFileReport?](repeating: nil, count: jobs.count))
        let next = Counter()
        let group = DispatchGroup()
        let jobsCopy = jobs
        for _ in 0..<workers {
            group.enter()
            let t = Thread { [self] in
                while let i = next.take(below: jobsCopy.count) {
                    let r = self.process(jobsCopy[i], ctx)
                    results.set(i, r)
                    self.finished(r)
                }
                group.leave()
            }
            t.stackSize = 8 << 20
            t.start()
        }
        group.wait()
        report.files = results.values.compactMap { $0 }
        var t = BatchTotals()
        t.files = report.files.count
        for f in report.files {
            switch f.status {
            case "developed": t.developed += 1; t.megapixels += Double((f.width ?? 0) * (f.height ?? 0)) / 1e6
            case "up-to-date": t.upToDate += 1
            case "skipped": t.skipped += 1
            case "previously-failed": t.previouslyFailed += 1
            case "not-run": t.notRun += 1
            default: t.failed += 1
            }
            if f.status == "developed" { t.outputs += f.outputs.count }
        }
        t.seconds = Date().timeIntervalSince(start)
        t.imagesPerSecond = t.seconds > 0 ? Double(t.developed) / t.seconds : 0
        t.megapixelsPerSecond = t.seconds > 0 ? t.megapixels / t.seconds : 0
        t.peakMemoryMB = processPeakMemoryMB()
        t.interrupted = Interrupt.shared.requested
        report.totals = t
        return report
    }

    struct Context: @unchecked Sendable {
        var formats: [OutputFormat]
        var recipe: DevelopRecipe
        var export: ExportOptions
        var recipeHash: String
        var manifest: Manifest
        var gate: MemoryGate
    }

    private func finished(_ r: BatchFileReport) {
        lock.lock()
        progress.done += 1
        if r.status == "failed" { progress.failed += 1 }
        if r.status == "developed" { progress.megapixels += Double((r.width ?? 0) * (r.height ?? 0)) / 1e6 }
        progress.elapsed = Date().timeIntervalSince(start)
        let p = progress
        onEvent(.finished(r, progress: p))
        lock.unlock()
    }

    /// One input, isolated: every failure becomes a report entry, never an abort.
    func process(_ job: Job, _ ctx: Context) -> BatchFileReport {
        let c = configuration
        let input = job.input
        var rep = BatchFileReport(status: "failed", input: input.path, relativePath: input.relativePath)
        if Interrupt.shared.requested { rep.status = "not-run"; return rep }
        guard let stat = InputFingerprint.stat(input.path) else {
            rep.error = DecodeError.fileNotFound(path: input.path).description
            rep.category = "not-found"
            return rep
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
            return (f, rel, (c.outputDirectory as NSString).appendingPathComponent(rel))
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
            rep.status = f.status == "skipped" ? "skipped" : "previously-failed"
            rep.error = f.error; rep.category = f.category; rep.outputs = []
            return rep
        }
        var todo: [(format: OutputFormat, rel: String, abs: String, replace: Bool)] = []
        for o in outs {
            let exists = FileManager.default.fileExists(atPath: o.abs)
            if c.overwrite { todo.append((o.format, o.rel, o.abs, exists)); continue }
            if let r = ctx.manifest.output(o.rel), r.recipe == ctx.recipeHash,
               same(size: r.inputSize, modified: r.inputModified, sha: r.inputHash, path: r.input) {
                if exists && (r.state == .done || !r.replacing) { continue }
                if r.state == .pending && r.replacing { todo.append((o.format, o.rel, o.abs, exists)); continue }
            }
            if exists {
                rep.error = "\(o.abs): output exists and was not made from this input and recipe (use --overwrite to replace it)"
                rep.category = "exists"
                return rep
            }
            todo.append((o.format, o.rel, o.abs, false))
        }
        upgradeLegacyRecords()
        if todo.isEmpty { rep.status = "up-to-date"; return rep }

        onEvent(.started(input: input.path))
        let md: RawMetadata
        do throws(DecodeError) {
            if let cached = job.metadata { md = try cached.get() } else { md = try RawDecoder.metadata(path: input.path, options: c.decode) }
        } catch {
            let full = hashed ?? stat.withHash(path: input.path)
            let error = Self.reclassified(error, path: input.path, size: stat.size)
            if case .notRaw = error, !input.explicit { rep.status = "skipped" }
            rep.error = error.description
            rep.category = DevelopFailure.decode(error).category
            rep.outputs = []
            recordFailure(rep, full, ctx, key: job.name)
            return rep
        }
        let sixteen = ctx.recipe.bitsPerSample == 16 && ctx.formats.contains { $0 != .jpeg }
        let (w, h) = c.decode.bayerDump.map { ($0.width, $0.height) } ?? (md.sensorWidth, md.sensorHeight)
        let estimate = MemoryGate.estimate(width: w, height: h, fileSize: stat.size, sixteenBit: sixteen,
                                           tileSize: ctx.recipe.tileSize, threads: ctx.recipe.threads)
        rep.estimatedMemoryMB = (Double(estimate) / 1048576 * 10).rounded() / 10
        guard ctx.gate.acquire(estimate, cancelled: { Interrupt.shared.requested }) else { rep.status = "not-run"; return rep }
        defer { ctx.gate.release(estimate) }
        if Interrupt.shared.requested { rep.status = "not-run"; return rep }
        let full = hashed ?? stat.withHash(path: input.path)
        rep.inputHash = full.contentHash
        func record(_ state: ManifestRecord.State, replacing: (Int) -> Bool) -> [String: ManifestRecord] {
            var d: [String: ManifestRecord] = [:]
            for (k, o) in todo.enumerated() {
                d[o.rel] = ManifestRecord(input: input.path, format: o.format.rawValue, recipe: ctx.recipeHash,
                                          inputSize: full.size, inputModified: full.modified, inputHash: full.contentHash ?? "",
                                          state: state, replacing: replacing(k), time: Date().timeIntervalSince1970)
            }
            return d
        }
        do { try ctx.manifest.set(outputs: record(.pending) { todo[$0].replace }, clearingFailureOf: job.name) } catch {
            rep.error = error.description; rep.category = "manifest"; return rep
        }
        // Supplied mattes are checked here, per file, so a missing one fails this file only.
        if let missing = ctx.export.suppliedMattes.first(where: { !FileManager.default.fileExists(atPath: $0.path) }) {
            rep.error = "\(input.path): supplied \(missing.kind.rawValue) matte \(missing.path) does not exist"
            rep.category = "matte"; rep.outputs = []
            return rep
        }
        for o in todo {
            let dir = (o.abs as NSString).deletingLastPathComponent
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                rep.error = "\(dir): cannot create output directory (\((error as NSError).localizedDescription))"
                rep.category = "write"; rep.outputs = []
                return rep
            }
        }
        var export = ctx.export
        export.overwrite = todo.contains { $0.replace }
        do throws(DevelopFailure) {
            let results = try FileDeveloper.develop(input: input.path, outputs: todo.map { ($0.format, $0.abs) },
                                                    recipe: ctx.recipe, export: export, decode: c.decode)
            rep.status = "developed"
            if let r = results.first {
                rep.width = r.width; rep.height = r.height; rep.warnings = r.warnings
                rep.decodeMilliseconds = r.decodeMilliseconds; rep.renderMilliseconds = r.renderMilliseconds
                rep.encodeMilliseconds = results.reduce(0) { $0 + $1.encodeMilliseconds }
            }
            rep.outputs = outs.map(\.abs)
        } catch {
            rep.error = error.description
            rep.category = error.category
            rep.outputs = outs.map(\.abs).filter { FileManager.default.fileExists(atPath: $0) }
            rep.peakMemoryMB = processPeakMemoryMB()
            recordFailure(rep, full, ctx, key: job.name)
            return rep
        }
        rep.peakMemoryMB = processPeakMemoryMB()
        do { try ctx.manifest.set(outputs: record(.done) { _ in false }, clearingFailureOf: job.name) } catch {
            rep.warnings.append("manifest not updated: \(error.description)")
        }
        return rep
    }

    /// A file too short to hold any RAW header that does not start like a TIFF is "not RAW"
    /// (the decoder calls it truncated, which is right only for RAW-looking files).
    static func reclassified(_ error: DecodeError, path: String, size: Int64) -> DecodeError {
        guard case .truncated = error, size < 64 else { return error }
        let head = FileManager.default.contents(atPath: path).map { [UInt8]($0.prefix(2)) } ?? []
        if head == [0x49, 0x49] || head == [0x4D, 0x4D] { return error }
        return .notRaw(path: path, detail: "unrecognised content (\(size) bytes)")
    }

    private func recordFailure(_ rep: BatchFileReport, _ fp: InputFingerprint, _ ctx: Context, key: String) {
        let f = ManifestFailure(input: rep.input, recipe: ctx.recipeHash, inputSize: fp.size, inputModified: fp.modified,
                                inputHash: fp.contentHash ?? "", status: rep.status, error: rep.error ?? "",
                                category: rep.category ?? "", time: Date().timeIntervalSince1970)
        try? ctx.manifest.set(failure: f, for: key)
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
