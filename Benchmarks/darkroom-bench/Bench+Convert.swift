import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom convert` on the 24 MP scene (uncompressed 14-bit DNG, as a camera's raw would be
/// unpacked) with each storage: wall time of the whole command (worker process, decode, preview
/// render, tile encode, read-back verification), input MB/s and stored MP/s, the DNG's size and
/// the raw data's ratio (16-bit samples ÷ compressed tile bytes). `--jobs 1`; the tiles of the
/// file use every core. The outputs of two runs are compared byte for byte.
extension Bench {
    mutating func convert(scene: BenchScene, path: String) throws {
        let file = scene.name
        log("\(file): darkroom convert")
        let inputBytes = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        for compression in ["ljpeg", "jxl-lossless"] {
            let outDir = "\(dir)/convert-\(compression)"
            // A fresh output directory for every run (a rerun into the same one is only a resume).
            let command = ["rm", "-rf", outDir, "&&", "exec", darkroom, "convert", path, "-o", outDir, "-q",
                           "--compression", compression, "--report", "\(dir)/convert-\(compression).json"]
            let tm = try Subprocess.time(command, shell: true, runs: runs)
            let out = "\(outDir)/\(file).dng"
            let first = FileManager.default.contents(atPath: out)
            _ = try Subprocess.time(command, shell: true, runs: 1)
            report.identical["\(file) convert \(compression) file, two runs"] = first != nil && first == FileManager.default.contents(atPath: out)
            let ratio = Self.rawRatio(report: "\(dir)/convert-\(compression).json")
            let note = String(format: "%.1f MB/s in; DNG %.1f MB (input %.1f MB); raw data %.2f:1",
                              inputBytes / 1e6 / tm.median, Double(first?.count ?? 0) / 1e6, inputBytes / 1e6, ratio)
            add("convert", file, "convert → DNG (\(compression))", tm, megapixels: scene.megapixels, note: note)
            try? FileManager.default.removeItem(atPath: outDir)
        }
        if Subprocess.which("dnglab") == nil {
            log("  dnglab: not installed (not packaged in Debian 12); no comparison")
        }
    }

    /// The raw data ratio the convert report gives for its one file (0 if unreadable).
    static func rawRatio(report path: String) -> Double {
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = json["files"] as? [[String: Any]], let result = files.first?["result"] as? [String: Any],
              let ratio = result["compressionRatio"] as? Double else { return 0 }
        return ratio
    }
}
