import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Output bytes of every sample in every format, against SHA-256 values recorded before a
/// refactor (`Golden/output-hashes.tsv`). A change that is meant to alter pixels or containers
/// re-records them with `RECORD_GOLDEN=1 make test` and says so in its commit; any other change
/// must leave every hash as it is. Hashes come from coreutils' `sha256sum`, not from our code.
///
/// Covered: `Samples/*.dng` (always) and the shared corpus' DNGs and RAWs that develop (when
/// `../shared/samples` is present), each as JPEG (sRGB), HEIF (sRGB) and 16-bit TIFF (Display P3).
@Suite("Output golden hashes", .serialized)
struct OutputGoldenTests {
    static let goldenFile = TestSupport.packageRoot.appendingPathComponent("Tests/DarkroomCLITests/Golden/output-hashes.tsv")

    static var inputs: [URL] {
        let samples = ((try? FileManager.default.contentsOfDirectory(atPath: TestSupport.packageRoot.appendingPathComponent("Samples").path)) ?? [])
            .filter { $0.hasSuffix(".dng") }.sorted()
            .map { TestSupport.packageRoot.appendingPathComponent("Samples").appendingPathComponent($0) }
        return samples + TestSupport.files(in: "dng") + TestSupport.files(in: "raw")
    }

    /// name → sha256 of every output that could be made.
    static func currentHashes() throws -> [String: String] {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        var produced: [String] = []
        for f in inputs {
            let stem = f.deletingPathExtension().lastPathComponent
            let eight = [(OutputFormat.jpeg, "\(stem).jpg"), (.heif, "\(stem).heic")]
            do throws(DevelopFailure) {
                _ = try FileDeveloper.develop(input: f.path, outputs: eight.map { ($0.0, dir + "/" + $0.1) },
                                              recipe: DevelopRecipe(), export: ExportOptions())
                produced += eight.map(\.1)
                var p3 = DevelopRecipe()
                p3.colorSpace = .p3
                p3.bitsPerSample = 16
                _ = try FileDeveloper.develop(input: f.path, outputs: [(.tiff, dir + "/\(stem).p3-16.tif")],
                                              recipe: p3, export: ExportOptions())
                produced.append("\(stem).p3-16.tif")
            } catch {
                continue   // files that must fail are covered by RealSampleTests
            }
        }
        var out: [String: String] = [:]
        guard !produced.isEmpty else { return out }
        let sums = try TestSupport.runTool("/usr/bin/sha256sum", produced, in: dir)
        for line in sums.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            out[parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " *"))] = String(parts[0])
        }
        return out
    }

    static func recorded() -> [String: String] {
        guard let text = try? String(contentsOf: goldenFile, encoding: .utf8) else { return [:] }
        var d: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let cols = line.split(separator: "\t")
            if cols.count == 2 { d[String(cols[0])] = String(cols[1]) }
        }
        return d
    }

    @Test func outputsMatchRecordedHashes() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else { return }
        let now = try Self.currentHashes()
        #expect(!now.isEmpty)
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            // Keep the entries of files absent here (the shared corpus may be missing).
            var all = Self.recorded()
            for (k, v) in now { all[k] = v }
            let body = all.keys.sorted().map { "\($0)\t\(all[$0]!)" }.joined(separator: "\n")
            try FileManager.default.createDirectory(at: Self.goldenFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try ("# output name\tsha256 (sha256sum), default recipe; .p3-16.tif = Display P3 16-bit TIFF\n" + body + "\n")
                .write(to: Self.goldenFile, atomically: true, encoding: .utf8)
            return
        }
        let golden = Self.recorded()
        #expect(!golden.isEmpty, "no recorded hashes: run RECORD_GOLDEN=1 make test")
        for (name, hash) in now.sorted(by: { $0.key < $1.key }) {
            #expect(golden[name] == hash, "\(name): output bytes changed (recorded \(golden[name] ?? "none"), now \(hash))")
        }
        // Every recorded output whose input is present must still be produced.
        let present = Set(Self.inputs.map { $0.deletingPathExtension().lastPathComponent })
        for name in golden.keys where present.contains(String(name.split(separator: ".").first ?? "")) {
            #expect(now[name] != nil, "\(name): recorded but no longer produced")
        }
    }
}
