import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Paths, the `darkroom` binary and subprocess helpers for the batch tests.
enum BatchTestSupport {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/samples/SUB` beside the checkout, when present.
    static func sharedSamples(_ sub: String) -> URL? {
        let u = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/samples").appendingPathComponent(sub)
        return FileManager.default.fileExists(atPath: u.path) ? u : nil
    }

    /// The built `darkroom` beside the test bundle (`TestSupport.binary`).
    static var binary: String? { TestSupport.binary }

    static func tempDirectory(_ tag: String = #function) -> String {
        let safe = tag.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "darkroom-batch-\(safe)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func cleanup(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    struct Run { var status: Int32; var stdout: String; var stderr: String }

    /// Runs `darkroom ARGS` to completion (with `environment` added to this process's); when
    /// `limit` seconds pass first, kills it and throws (a hang is a test failure, not a stuck run).
    static func run(_ args: [String], in dir: String? = nil, environment: [String: String] = [:], limit: Double = 300) throws -> Run {
        guard let bin = binary else { throw TestFailure("darkroom binary not found next to the test bundle; build it first") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = args
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let dir { p.currentDirectoryURL = URL(fileURLWithPath: dir) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let pid = p.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        defer { watchdog.cancel() }
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        let errBox = DataBox()
        let t = Thread { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        t.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !errBox.done { usleep(1000) }
        if p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL && watchdog.isCancelled == false {
            throw TestFailure("darkroom \(args.joined(separator: " ")) did not finish within \(limit) s (killed)")
        }
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                   stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    final class DataBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value = Data()
        private var finished = false
        var data: Data {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); value = newValue; finished = true; lock.unlock() }
        }
        var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    // Charts, reports and trees: the shared helpers below (`TestSupport` extension).
    @discardableResult
    static func writeCharts(in dir: String, prefix: String = "", count: Int = 4) throws -> [String] {
        try TestSupport.writeCharts(in: dir, prefix: prefix, count: count)
    }
    static func report(_ path: String) throws -> [String: Any] { try TestSupport.report(path) }
    static func files(_ report: [String: Any]) -> [[String: Any]] { TestSupport.files(report) }
    static func totals(_ report: [String: Any]) -> [String: Any] { TestSupport.totals(report) }
    static func tree(_ dir: String) -> [String] { TestSupport.tree(dir) }
}


/// Batch-only helpers on the shared `TestSupport` (DarkroomTestSupport): chart inputs, reports, trees.
extension TestSupport {
    /// Writes the four synthetic chart DNGs (600x400) into `dir`, named with `prefix`.
    @discardableResult
    static func writeCharts(in dir: String, prefix: String = "", count: Int = 4) throws -> [String] {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var out: [String] = []
        for i in 0..<count {
            let spec = SyntheticSamples.all[i % SyntheticSamples.all.count]
            let raw = spec.chart().makeRawImage()
            let path = dir + "/\(prefix)\(spec.name)\(i >= SyntheticSamples.all.count ? "-\(i)" : "").dng"
            try DNGWriter.write(raw, to: path, options: DNGWriteOptions())
            out.append(path)
        }
        return out
    }

    static func report(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    static func files(_ report: [String: Any]) -> [[String: Any]] { report["files"] as? [[String: Any]] ?? [] }
    static func totals(_ report: [String: Any]) -> [String: Any] { report["totals"] as? [String: Any] ?? [:] }

    /// Every regular file below `dir` (relative paths, sorted), hidden ones included.
    static func tree(_ dir: String) -> [String] {
        var out: [String] = []
        let e = FileManager.default.enumerator(atPath: dir)
        while let rel = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: dir + "/" + rel, isDirectory: &isDir), !isDir.boolValue { out.append(rel) }
        }
        return out.sorted()
    }
}
