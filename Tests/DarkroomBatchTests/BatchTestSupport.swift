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

    typealias Run = TestSupport.Run

    /// `darkroom ARGS` with a time limit (`TestSupport.run`).
    static func run(_ args: [String], in dir: String? = nil, environment: [String: String] = [:], limit: Double = 300) throws -> Run {
        try TestSupport.run(args, in: dir, environment: environment, limit: limit)
    }

    typealias TestFailure = TestSupport.TestFailure

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
