import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation

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
