import Foundation

/// What happened to one input (JSON: the raw value).
public enum FileStatus: String, Sendable, Codable, CaseIterable {
    /// Every output written.
    case developed
    /// Every output exists and matches the input and recipe (nothing done).
    case upToDate = "up-to-date"
    /// Found in a directory but not RAW, or not a regular file (not a failure).
    case skipped
    /// Failed this run (`error`, `category`).
    case failed
    /// Failed before with the same content and recipe; not retried (`--retry-failed` retries).
    case previouslyFailed = "previously-failed"
    /// Not started, or stopped, because the run was interrupted.
    case notRun = "not-run"
}

/// Why an input failed (JSON: the raw value). Input-side categories are remembered in the
/// manifest (the same input and recipe is not retried); output-side ones (`write`, `no-space`,
/// `exists`, `output-refused`, `manifest`) are not, so a rerun after fixing the output side
/// completes the rest.
public enum FailureCategory: String, Sendable, Codable, CaseIterable {
    case notFound = "not-found"
    /// A FIFO, device, socket or directory named as an input: refused without being opened.
    case notRegular = "not-regular"
    case unreadable
    case notRaw = "not-raw"
    case unsupported
    case truncated
    case corrupt
    case invalidParameters = "invalid-parameters"
    /// The declared image does not fit the file's size or the memory limit (`DecodeBudget`).
    case tooLarge = "too-large"
    case develop
    case encode
    case matte
    /// The output side failed (EROFS, EIO, EACCES, …).
    case write
    /// ENOSPC or EDQUOT while writing an output.
    case noSpace = "no-space"
    /// An output exists that was not made from this input and recipe (`--overwrite` replaces it).
    case exists
    /// The output would replace an input, the manifest or the report, or would be written
    /// through a symbolic link below OUTDIR.
    case outputRefused = "output-refused"
    /// The manifest could not be updated.
    case manifest
    /// The worker process died on a signal (the error names it) or exited unexpectedly.
    case crashed
    /// The file took longer than `--timeout` seconds; its worker was killed.
    case timeout
    /// The worker's resident memory passed its limit; it was killed.
    case memory
    /// A category this version does not name (from another layer).
    case other

    /// Whether the cause lies in the output side, not in the input (not remembered as a failure).
    public var isOutputSide: Bool {
        switch self {
        case .write, .noSpace, .exists, .outputRefused, .manifest: return true
        default: return false
        }
    }

    /// From a category string of a lower layer (`DevelopFailure.category`).
    public init(label: String) { self = FailureCategory(rawValue: label) ?? .other }
}

/// One input's outcome.
public struct BatchFileReport: Sendable, Codable, Equatable {
    public var status: FileStatus
    public var input: String
    public var relativePath: String
    public var outputs: [String] = []
    public var error: String?
    public var category: FailureCategory?
    public var warnings: [String] = []
    /// The picture-quality controls as resolved for this file, keyed by recipe key (demosaic,
    /// highlights, noise-reduction, sharpen, lens): `darkroom explain`'s line for each. The
    /// report's `recipe` says what was asked for every file; this says what it became here.
    public var controls: [String: String]?
    public var width: Int?
    public var height: Int?
    public var decodeMilliseconds: Double?
    public var renderMilliseconds: Double?
    public var encodeMilliseconds: Double?
    public var estimatedMemoryMB: Double?
    /// getrusage(RUSAGE_SELF).ru_maxrss after this file, MiB (the process's peak so far).
    public var peakMemoryMB: Double?
    public var inputHash: String?

    public init(status: FileStatus, input: String, relativePath: String) {
        self.status = status; self.input = input; self.relativePath = relativePath
    }
}

public struct BatchTotals: Sendable, Codable, Equatable {
    public var files = 0
    public var developed = 0
    public var upToDate = 0
    public var skipped = 0
    public var failed = 0
    public var previouslyFailed = 0
    public var notRun = 0
    public var outputs = 0
    public var megapixels = 0.0
    public var seconds = 0.0
    public var imagesPerSecond = 0.0
    public var megapixelsPerSecond = 0.0
    public var peakMemoryMB = 0.0
    public var interrupted = false
}

/// `--report FILE.json` (schema documented in README, "Report and exit status").
public struct BatchReport: Sendable, Codable, Equatable {
    /// Version of this JSON layout: 2 adds `schemaVersion`, `timeoutSeconds` and the categories
    /// `not-regular`, `crashed`, `timeout`, `memory`, `no-space`, `output-refused`; 3 adds `recipe`.
    public static let currentSchemaVersion = 3
    public var schemaVersion = BatchReport.currentSchemaVersion
    public var tool = "darkroom"
    public var version: String
    public var outputDirectory: String
    public var recipeHash: String
    /// Every output-changing recipe entry, resolved (defaults included), by key — what the recipe
    /// hash covers, readable: `look`, `demosaic`, `highlights`, `wb`, … An audit needs no rerun.
    public var recipe: [String: RecipeValue] = [:]
    public var shard: String?
    /// A merged report (`darkroom report merge`): the shards it was merged from, `K/N` each.
    public var mergedShards: [String]?
    public var jobs: Int
    public var threadsPerImage: Int
    public var memoryBudgetMB: Double
    /// Per-file time limit in seconds (0: none).
    public var timeoutSeconds: Double = 0
    public var totals = BatchTotals()
    public var files: [BatchFileReport] = []

    /// 130 interrupted, 1 when any file failed this run or before (`previously-failed`), else 0.
    public var exitCode: Int32 { totals.interrupted ? 130 : (totals.failed > 0 || totals.previouslyFailed > 0 ? 1 : 0) }

    public func summaryLine() -> String {
        let t = totals
        var s = "\(t.files) files: \(t.developed) developed, \(t.upToDate) up to date, \(t.skipped) skipped, \(t.failed) failed"
        if t.previouslyFailed > 0 { s += ", \(t.previouslyFailed) failed before (--retry-failed)" }
        if t.notRun > 0 { s += ", \(t.notRun) not run (interrupted)" }
        s += String(format: "; %.1f s, %.2f images/s, %.1f MP/s, peak %.0f MiB", t.seconds, t.imagesPerSecond, t.megapixelsPerSecond, t.peakMemoryMB)
        return s
    }
}

/// Peak resident set size of this process so far, in MiB (Linux reports ru_maxrss in KiB).
public func processPeakMemoryMB() -> Double {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    return Double(u.ru_maxrss) / 1024
}

/// The largest peak resident set size of this process and of its reaped children (workers), MiB.
public func processAndWorkersPeakMemoryMB() -> Double {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &u)
    return max(processPeakMemoryMB(), Double(u.ru_maxrss) / 1024)
}
