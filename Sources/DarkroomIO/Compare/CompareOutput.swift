import DarkroomCore
import Foundation

/// Writes a `CompareReport` into the report directory: `report.json`, `patches.csv`, one CGATS
/// `.ti3` per file × illuminant (`STEM-ILLUMINANT.ti3`, the first profile's camera RGB with the
/// reference XYZ), `index.html` (`CompareHTML`) and its swatch images `swatches-N.png` (run N,
/// counted from 1, final stage; `SwatchPNG`). Every file is checked before any is written (an existing one is an error
/// unless `overwrite`), and each is written atomically.
public enum CompareOutput {
    /// File name → bytes, in writing order.
    public static func files(_ report: CompareReport, extra: [(String, [UInt8])] = []) throws(CompareError) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        do { out.append(("report.json", try report.jsonBytes())) } catch { throw .write(path: "report.json", reason: "\(error)") }
        out.append(("patches.csv", report.csvBytes()))
        var seen = Set<String>()
        var used = Set<String>()
        for run in report.runs {
            let key = run.file + "\u{1}" + run.illuminant
            guard !seen.contains(key), let stage = run.stages.last else { continue }
            seen.insert(key)
            let stem = URL(fileURLWithPath: run.file).deletingPathExtension().lastPathComponent
            let illum = run.illuminant.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" }
            var name = "\(stem)-\(String(illum)).ti3"
            var n = 2
            while used.contains(name) { name = "\(stem)-\(String(illum))-\(n).ti3"; n += 1 }
            used.insert(name)
            out.append((name, CompareReport.ti3Bytes(run: run, stage: stage)))
        }
        for (i, run) in report.runs.enumerated() {
            guard let stage = run.stages.last else { continue }
            let img = SwatchPNG.image(stage.patches)
            guard let png = SwatchPNG.encode(width: img.width, height: img.height, rgb: img.rgb) else {
                throw .write(path: swatchName(i), reason: "cannot encode the swatch PNG")
            }
            out.append((swatchName(i), png))
        }
        out.append(("index.html", Array(CompareHTML.page(report, swatch: swatchName).utf8)))
        return out + extra
    }

    /// The swatch image of run `index` (0-based): `swatches-(index + 1).png`.
    public static func swatchName(_ index: Int) -> String { "swatches-\(index + 1).png" }

    /// Writes `files` into `directory` (created when missing). None of them may replace one of
    /// `inputs` (the chart files, profiles and reference: same device and inode), whatever
    /// `overwrite` says.
    public static func write(_ files: [(String, [UInt8])], directory: String, overwrite: Bool, inputs: [String] = []) throws(CompareError) {
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .write(path: directory, reason: (error as NSError).localizedDescription)
        }
        let paths = files.map { (directory as NSString).appendingPathComponent($0.0) }
        let protected = Set(inputs.compactMap(AtomicWriter.FileIdentity.of(path:)))
        if let clash = paths.first(where: { AtomicWriter.FileIdentity.of(path: $0).map(protected.contains) == true }) {
            throw .write(path: clash, reason: "it is an input of this run; never replaced")
        }
        if !overwrite, let existing = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            throw .write(path: existing, reason: "exists (use --overwrite to replace it)")
        }
        for (path, file) in zip(paths, files) {
            do { try AtomicWriter.write(file.1, to: path, overwrite: overwrite) } catch { throw .write(path: path, reason: error.description) }
        }
    }
}
