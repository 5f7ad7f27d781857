import Foundation

/// One input's outcome.
public struct BatchFileReport: Sendable, Codable, Equatable {
    /// developed | up-to-date | skipped (not RAW, found in a directory) | failed |
    /// previously-failed (unchanged input and recipe failed before; `--retry-failed` retries) |
    /// not-run (interrupted).
    public var status: String
    public var input: String
    public var relativePath: String
    public var outputs: [String] = []
    public var error: String?
    public var category: String?
    public var warnings: [String] = []
    public var width: Int?
    public var height: Int?
    public var decodeMilliseconds: Double?
    public var renderMilliseconds: Double?
    public var encodeMilliseconds: Double?
    public var estimatedMemoryMB: Double?
    /// getrusage(RUSAGE_SELF).ru_maxrss after this file, MiB (the process's peak so far).
    public var peakMemoryMB: Double?
    public var inputHash: String?

    public init(status: String, input: String, relativePath: String) {
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

/// `--report FILE.json`.
public struct BatchReport: Sendable, Codable, Equatable {
    public var tool = "darkroom"
    public var version: String
    public var outputDirectory: String
    public var recipeHash: String
    public var shard: String?
    public var jobs: Int
    public var threadsPerImage: Int
    public var memoryBudgetMB: Double
    public var totals = BatchTotals()
    public var files: [BatchFileReport] = []

    public var exitCode: Int32 { totals.interrupted ? 130 : (totals.failed > 0 ? 1 : 0) }

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
