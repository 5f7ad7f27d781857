import DarkroomCore
import Foundation

/// Many flash / no-flash pairs in one run (`darkroom constant-colour --pairs pairs.csv`): each
/// pair runs `ConstantColourDeveloper.run` on its own, so one bad pair costs one line on stderr
/// and one `failed` entry in the report, and the others are still done.
///
/// The pairs file is CSV, one pair a line: `ambient,flash[,name]`. Paths are taken relative to
/// the pairs file's folder unless absolute; `name` (optional) is the outputs' STEM (default: the
/// ambient file's name without extension; letters, digits, `.`, `-`, `_` only, no leading `.`).
/// Blank lines and `#` comments are skipped, and so is a first line whose first field is
/// `ambient` (a header). At most 1 MiB and 10 000 pairs; two pairs with one STEM are refused
/// (their outputs would collide) before anything runs.
public enum ConstantColourBatch {
    /// One pair of the pairs file.
    public struct Pair: Sendable, Equatable {
        public var ambient: String
        public var flash: String
        /// The outputs' STEM.
        public var name: String
        /// 1-based line in the pairs file.
        public var line: Int
    }

    /// Why the pairs file cannot be used (a usage error: exit 2, nothing runs).
    public enum Failure: Error, Sendable, CustomStringConvertible, Equatable {
        case unreadable(path: String, reason: String)
        case bad(path: String, line: Int, reason: String)
        public var description: String {
            switch self {
            case .unreadable(let p, let r): return "\(p): cannot read the pairs file (\(r))"
            case .bad(let p, let l, let r): return "\(p):\(l): \(r)"
            }
        }
    }

    static let maxBytes = 1 << 20
    static let maxPairs = 10_000

    /// The pairs listed in the CSV at `path`.
    public static func pairs(path: String) throws(Failure) -> [Pair] {
        let data: Data
        do { data = Data(try OptionFile.read(path, kind: .pairs)) } catch { throw .unreadable(path: path, reason: error.reason) }
        guard data.count <= maxBytes else { throw .unreadable(path: path, reason: "larger than 1 MiB") }
        guard let text = String(data: data, encoding: .utf8) else { throw .unreadable(path: path, reason: "not UTF-8 text") }
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String {
            p.hasPrefix("/") || folder.isEmpty ? p : (folder as NSString).appendingPathComponent(p)
        }
        var out: [Pair] = []
        var stems: [String: Int] = [:]
        var sawContent = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            defer { sawContent = true }
            if !sawContent, fields.first?.lowercased() == "ambient" { continue }
            guard (2...3).contains(fields.count), !fields[0].isEmpty, !fields[1].isEmpty else {
                throw .bad(path: path, line: index + 1, reason: "expected 'ambient,flash[,name]', found '\(line.prefix(60))'")
            }
            let ambient = resolve(fields[0]), flash = resolve(fields[1])
            var name = URL(fileURLWithPath: ambient).deletingPathExtension().lastPathComponent
            if fields.count == 3, !fields[2].isEmpty { name = fields[2] }
            let allowed = name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) }
            guard !name.isEmpty, !name.hasPrefix("."), name.count <= 200, allowed else {
                throw .bad(path: path, line: index + 1, reason: "name '\(name.prefix(60))' must be letters, digits, '.', '-' or '_' and not start with '.'")
            }
            if let first = stems[name] {
                throw .bad(path: path, line: index + 1, reason: "name '\(name)' is also line \(first)'s: their outputs would collide (give a third column)")
            }
            guard out.count < maxPairs else { throw .bad(path: path, line: index + 1, reason: "more than \(maxPairs) pairs") }
            stems[name] = index + 1
            out.append(Pair(ambient: ambient, flash: flash, name: name, line: index + 1))
        }
        guard !out.isEmpty else { throw .bad(path: path, line: 1, reason: "no pairs") }
        return out
    }

    /// The batch report (OUTDIR/constant-colour-report.json), schema 1.
    public struct Report: Sendable, Codable, Equatable {
        public struct Entry: Sendable, Codable, Equatable {
            public var name: String
            public var ambient: String
            public var flash: String
            /// "done" or "failed".
            public var status: String
            /// The one-line error of a failed pair.
            public var error: String?
            /// Centre-weighted confidence 0…1 (3 decimals); nil when the pair failed.
            public var centreWeightedConfidence: Double?
            /// Whether the fallback render was written.
            public var fallback: Bool
            public var outputs: [String]
            public var fallbackOutputs: [String]
            /// The pair's own report (STEM-constant-colour.json).
            public var report: String?
        }
        public var schema = 1
        public var pairsFile: String
        public var done: Int
        public var failed: Int
        public var pairs: [Entry]
    }

    /// Runs every pair into `outputDirectory` (each with `options`), calling `failed` with each
    /// failing pair's one-line error as it happens, and writes the batch report. Returns it.
    @discardableResult
    public static func run(pairsFile: String, pairs: [Pair], outputDirectory: String, options: ConstantColourOptions,
                           failed: (String) -> Void) throws(ConstantColourDeveloper.Failure) -> Report {
        var entries: [Report.Entry] = []
        for pair in pairs {
            do {
                let r = try ConstantColourDeveloper.run(ambient: pair.ambient, flash: pair.flash, outputDirectory: outputDirectory,
                                                        options: options, stem: pair.name)
                let paths = ConstantColourDeveloper.outputPaths(stem: pair.name, outputDirectory: outputDirectory, formats: options.formats)
                entries.append(.init(name: pair.name, ambient: pair.ambient, flash: pair.flash, status: "done", error: nil,
                                     centreWeightedConfidence: r.centreWeightedConfidence, fallback: !r.fallbackOutputs.isEmpty,
                                     outputs: r.outputs, fallbackOutputs: r.fallbackOutputs, report: paths.report))
            } catch {
                failed(error.description)
                entries.append(.init(name: pair.name, ambient: pair.ambient, flash: pair.flash, status: "failed", error: error.description,
                                     centreWeightedConfidence: nil, fallback: false, outputs: [], fallbackOutputs: [], report: nil))
            }
        }
        let report = Report(pairsFile: pairsFile, done: entries.filter { $0.status == "done" }.count,
                            failed: entries.filter { $0.status == "failed" }.count, pairs: entries)
        let path = (outputDirectory as NSString).appendingPathComponent("constant-colour-report.json")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json: Data
        do { json = try encoder.encode(report) } catch { throw .encode(path: path, reason: "\(error)") }
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw .write(.io(path: outputDirectory, reason: "cannot create the output directory"))
        }
        // The batch report is rewritten by every run (it describes the latest one).
        do { try AtomicWriter.write([UInt8](json) + [10], to: path, overwrite: true) } catch { throw .write(error) }
        return report
    }
}
