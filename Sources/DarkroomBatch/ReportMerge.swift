#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `darkroom report merge`: one report for a job that ran as shards (`--shard K/N` or `auto`) —
/// SLURM array tasks, Kubernetes Indexed Job pods, GNU parallel jobs — from the shards' own
/// reports. The merged report has the single-machine shape (develop's `BatchReport` or convert's
/// `ConvertReport`): every input once with its status, totals recounted from the files, `shard`
/// empty and `mergedShards` naming the shards. Timings are the slowest shard's wall time and the
/// sums of the rest.
///
/// Checked, each a problem that makes the exit status 1 (the merged report is still produced):
/// every shard 1…N present exactly once, all reports of one command and one recipe (develop's
/// recipe hash; convert's options), no input in two shards, and every input done (developed,
/// converted, up to date, or skipped as not RAW). A report that cannot be read is a usage error.
public enum ReportMerge {
    /// Largest report file read (a report is ~0.5 KB per input: a million inputs fit).
    static let maxBytes = 1 << 30

    public struct Outcome: Sendable {
        /// The merged report, JSON (the same encoding as a run's `--report`).
        public var json: [UInt8]
        /// One line: inputs, statuses, shards.
        public var summary: String
        /// Why the job is not complete (missing shards, failures, …), one line each.
        public var problems: [String]
        public var exitCode: Int32 { problems.isEmpty ? 0 : 1 }
    }

    /// The report files named, directories expanded to the `*.json` files in them (sorted).
    public static func reportFiles(_ paths: [String]) throws(BatchError) -> [String] {
        var files: [String] = []
        for p in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else { throw .usage("\(p): no such file or directory") }
            if isDir.boolValue {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: p)) ?? []).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
                files += names.sorted().map { (p as NSString).appendingPathComponent($0) }
            } else {
                files.append(p)
            }
        }
        guard !files.isEmpty else { throw .usage("no report files in \(paths.joined(separator: " "))") }
        return files
    }

    public static func merge(_ paths: [String]) throws(BatchError) -> Outcome {
        let files = try reportFiles(paths)
        var texts: [(path: String, bytes: [UInt8])] = []
        for f in files { texts.append((f, try readReport(f))) }
        let tool = try texts.map { (t) throws(BatchError) -> String in try toolName(t.bytes, path: t.path) }
        guard Set(tool).count == 1 else {
            throw .usage("reports of different commands: \(zip(files, tool).map { "\(($0 as NSString).lastPathComponent) (\($1))" }.joined(separator: ", "))")
        }
        if tool[0] == "darkroom convert" {
            return try mergeConvert(texts.map { (t) throws(BatchError) -> (String, ConvertReport) in (t.path, try decode(t.bytes, path: t.path)) })
        }
        return try mergeDevelop(texts.map { (t) throws(BatchError) -> (String, BatchReport) in (t.path, try decode(t.bytes, path: t.path)) })
    }

    // MARK: develop

    static func mergeDevelop(_ reports: [(String, BatchReport)]) throws(BatchError) -> Outcome {
        var problems: [String] = []
        let first = reports[0].1
        for (path, r) in reports.dropFirst() where r.recipeHash != first.recipeHash {
            problems.append("\(path): recipe \(r.recipeHash.prefix(12)) differs from \(reports[0].0)'s \(first.recipeHash.prefix(12)): not one job")
        }
        let shards = try shardProblems(reports.map { ($0.0, $0.1.shard) }, into: &problems)
        var files = eachInputOnce(reports.map { ($0.0, $0.1.files) }, input: \.input, into: &problems)
        files.sort { ($0.input, $0.relativePath) < ($1.input, $1.relativePath) }
        var t = BatchTotals()
        t.files = files.count
        for f in files {
            switch f.status {
            case .developed: t.developed += 1
            case .upToDate: t.upToDate += 1
            case .skipped: t.skipped += 1
            case .failed: t.failed += 1
            case .previouslyFailed: t.previouslyFailed += 1
            case .notRun: t.notRun += 1
            }
            t.outputs += f.outputs.count
            if f.status != .skipped, f.status != .upToDate, let w = f.width, let h = f.height { t.megapixels += Double(w * h) / 1e6 }
            if f.status == .failed || f.status == .previouslyFailed || f.status == .notRun {
                problems.append("\(f.input): \(f.status.rawValue)\(f.error.map { " (\($0))" } ?? "")")
            }
        }
        t.seconds = reports.map { $0.1.totals.seconds }.max() ?? 0
        t.peakMemoryMB = reports.map { $0.1.totals.peakMemoryMB }.max() ?? 0
        t.interrupted = reports.contains { $0.1.totals.interrupted }
        if t.seconds > 0 { t.imagesPerSecond = Double(t.developed) / t.seconds; t.megapixelsPerSecond = t.megapixels / t.seconds }
        var merged = combined(reports, shards: shards, files: files)
        merged.totals = t
        var line = "\(t.files) files in \(shards.count) shard\(shards.count == 1 ? "" : "s"): \(t.developed) developed, \(t.upToDate) up to date, \(t.skipped) skipped, \(t.failed) failed"
        if t.previouslyFailed > 0 { line += ", \(t.previouslyFailed) failed before" }
        if t.notRun > 0 { line += ", \(t.notRun) not run" }
        return Outcome(json: try encode(merged), summary: line, problems: problems)
    }

    // MARK: convert

    static func mergeConvert(_ reports: [(String, ConvertReport)]) throws(BatchError) -> Outcome {
        var problems: [String] = []
        let first = reports[0].1
        func options(_ r: ConvertReport) -> String {
            "compression \(r.compression), preview \(r.preview), verify \(r.verify), embed-original \(r.embedOriginal), tile \(r.tileSize)"
        }
        for (path, r) in reports.dropFirst() where options(r) != options(first) {
            problems.append("\(path): \(options(r)) differs from \(reports[0].0)'s \(options(first)): not one job")
        }
        let shards = try shardProblems(reports.map { ($0.0, $0.1.shard) }, into: &problems)
        var files = eachInputOnce(reports.map { ($0.0, $0.1.files) }, input: \.input, into: &problems)
        files.sort { $0.input < $1.input }
        var t = ConvertReport.Totals()
        t.files = files.count
        for f in files {
            switch f.status {
            case "converted": t.converted += 1
            case "up-to-date": t.upToDate += 1
            case "skipped": t.skipped += 1
            default:
                t.failed += 1
                problems.append("\(f.input): \(f.status)\(f.error.map { " (\($0))" } ?? "")")
            }
            if let r = f.result, f.status == "converted" {
                t.inputMegabytes += Double(r.inputBytes) / 1e6
                t.outputMegabytes += Double(r.outputBytes) / 1e6
            }
        }
        t.megapixels = reports.reduce(0) { $0 + $1.1.totals.megapixels }
        t.seconds = reports.map { $0.1.totals.seconds }.max() ?? 0
        if t.seconds > 0 { t.megabytesPerSecond = t.inputMegabytes / t.seconds; t.megapixelsPerSecond = t.megapixels / t.seconds }
        var merged = combined(reports, shards: shards, files: files)
        merged.totals = t
        let line = "\(t.files) files in \(shards.count) shard\(shards.count == 1 ? "" : "s"): \(t.converted) converted, \(t.upToDate) up to date, \(t.skipped) skipped, \(t.failed) failed"
        return Outcome(json: try encode(merged), summary: line, problems: problems)
    }

    // MARK: shared

    /// The first report as the whole job's: no shard of its own, the shards it merges, every
    /// shard's workers and the merged files (totals are the caller's, recounted per report kind).
    static func combined<R: ShardedReport>(_ reports: [(String, R)], shards: [String], files: [R.File]) -> R {
        var merged = reports[0].1
        merged.shard = nil
        merged.mergedShards = shards
        merged.jobs = reports.reduce(0) { $0 + $1.1.jobs }
        merged.files = files
        return merged
    }

    /// The files of every report, each input once: an input a second report lists too is a problem
    /// naming both reports (shards overlap), and its second entry is dropped.
    static func eachInputOnce<F>(_ reports: [(path: String, files: [F])], input: KeyPath<F, String>,
                                 into problems: inout [String]) -> [F] {
        var seen: [String: String] = [:]
        var out: [F] = []
        for (path, files) in reports {
            for f in files {
                let name = f[keyPath: input]
                if let other = seen[name] { problems.append("\(name): in both \(other) and \(path)"); continue }
                seen[name] = path
                out.append(f)
            }
        }
        return out
    }

    /// The shards named by the reports, in order; problems for a report that is not a shard
    /// among several, shards of different N, a shard twice, and shards missing from 1…N.
    static func shardProblems(_ shards: [(path: String, shard: String?)], into problems: inout [String]) throws(BatchError) -> [String] {
        var parsed: [(path: String, shard: Shard)] = []
        for (path, text) in shards {
            guard let text else {
                if shards.count > 1 { problems.append("\(path): a whole run, not a shard (--shard K/N); it overlaps the others") }
                continue
            }
            do throws(BatchError) { parsed.append((path, try Shard(parsing: text))) } catch {
                throw .usage("\(path): shard '\(text)' is not K/N")
            }
        }
        guard let n = parsed.first?.shard.count else { return [] }
        if parsed.contains(where: { $0.shard.count != n }) {
            problems.append("shards of different sizes: \(parsed.map { "\(($0.path as NSString).lastPathComponent) \($0.shard)" }.joined(separator: ", "))")
        }
        var byIndex: [Int: String] = [:]
        for (path, s) in parsed where s.count == n {
            if let other = byIndex[s.index] { problems.append("shard \(s) reported twice: \(other) and \(path)") }
            byIndex[s.index] = path
        }
        let missing = (1...n).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            problems.append("no report for shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(n)" }.joined(separator: ", ")): their inputs are not accounted for")
        }
        return byIndex.keys.sorted().map { "\($0)/\(n)" }
    }

    /// The file's bytes: a regular file (a FIFO or device is refused without blocking) of at most
    /// `maxBytes`.
    static func readReport(_ path: String) throws(BatchError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .usage("\(path): cannot read report (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw .usage("\(path): a report must be a regular file") }
        guard st.st_size <= maxBytes else { throw .usage("\(path): report is \(st.st_size) bytes; the limit is \(maxBytes) (1 GiB)") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .usage("\(path): cannot read report (\(String(cString: strerror(errno))))") }
            if n == 0 { break }
            count += n
        }
        guard count <= maxBytes else { throw .usage("\(path): report grew past \(maxBytes) bytes while read") }
        return Array(bytes[0..<count])
    }

    static func toolName(_ bytes: [UInt8], path: String) throws(BatchError) -> String {
        struct Head: Decodable { var tool: String? }
        guard let head = try? JSONDecoder().decode(Head.self, from: Data(bytes)), let tool = head.tool,
              tool == "darkroom" || tool == "darkroom convert" else {
            throw .usage("\(path): not a darkroom develop or convert report")
        }
        return tool
    }

    static func decode<T: Decodable>(_ bytes: [UInt8], path: String) throws(BatchError) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(bytes)) } catch {
            throw .usage("\(path): not a readable report (\(String(describing: error).prefix(160)))")
        }
    }

    static func encode<T: Encodable>(_ value: T) throws(BatchError) -> [UInt8] {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { return [UInt8](try enc.encode(value)) } catch { throw .io("cannot encode the merged report (\(error))") }
    }
}

/// What `ReportMerge.combined` sets on develop's and convert's reports alike.
protocol ShardedReport {
    associatedtype File
    var shard: String? { get set }
    var mergedShards: [String]? { get set }
    var jobs: Int { get set }
    var files: [File] { get set }
}

extension BatchReport: ShardedReport {}
extension ConvertReport: ShardedReport {}
