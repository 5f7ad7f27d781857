@testable import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Issue 41, "every command as safe as develop", as a user meets it: colour data that overflows
/// fails one file with one line (no trap), option files are checked by kind and size before a byte
/// is read, no command writes over its own inputs, and outputs are redone when what decided them
/// (a DCP's bytes) or the output itself changed. Every crafted file is made here.
@Suite("CommandSafety", .serialized)
struct CommandSafetyTests {
    // MARK: Fixtures

    /// A chart DNG (the Luther camera of `CompareTests`) and its `--chart` corners.
    static func chart(in dir: String) throws -> (dng: String, corners: String) {
        let chart = CompareTests.lutherChart(bits: 12)
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        let c = CompareTests.corners(chart).flatMap { [$0.x, $0.y] }.map { String(Int($0)) }.joined(separator: ",")
        return (dng, c)
    }

    /// A CGATS reference of 24 rows with `fields` and each row's values from `row`.
    static func cgats(_ dir: String, name: String, fields: [String], row: (Int) -> [String]) throws -> String {
        var s = "CTI3\nNUMBER_OF_FIELDS \(fields.count + 1)\nBEGIN_DATA_FORMAT\nSAMPLE_ID \(fields.joined(separator: " "))\nEND_DATA_FORMAT\n"
        s += "NUMBER_OF_SETS 24\nBEGIN_DATA\n"
        for i in 0..<24 { s += "\(i + 1) " + row(i).joined(separator: " ") + "\n" }
        s += "END_DATA\n"
        let path = dir + "/" + name
        try s.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A DCP with a plausible ColorMatrix1 (`scale` multiplies one element) and, when
    /// `valueScale` is given, a 2×2×1 HueSatMap whose value scale is that everywhere.
    static func dcp(_ path: String, scale: Double = 1, valueScale: Float? = nil) throws {
        var p = CameraProfile()
        p.name = "test"
        p.calibrationIlluminant1 = 21
        p.colorMatrix1 = Matrix3([0.7 * scale, -0.1, -0.05, -0.4, 1.2, 0.2, -0.05, 0.1, 0.6])
        if let valueScale {
            p.hueSatMapDims = [2, 2, 1]
            p.hueSatMapData1 = (0..<4).flatMap { _ in [Float(0), 1, valueScale] }
        }
        try DCPWriter.write(p, uniqueCameraModel: nil, to: path, overwrite: true)
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// A sparse file of `size` bytes (`truncate -s`): no disk, and a reader that reads it whole
    /// before checking its size needs that much memory.
    static func sparse(_ path: String, size: off_t = 2 << 30) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(ftruncate(fd, size) == 0)
    }

    /// The `status` of every file of a batch JSON report.
    static func statuses(_ report: String) throws -> [String] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        return (json?["files"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
    }

    // MARK: Crashes: finite on input, overflowing in the colour maths

    /// L*a*b* 1e300 and reflectances 1e308 are finite but overflow (Lab cubes, spectral sums):
    /// before, `compare` and `profile fit` trapped converting NaN to Int with no report. Now the
    /// reference is refused with one line naming the value (a usage error: nothing read yet).
    @Test func overflowingReferenceIsRefusedNotATrap() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let (dng, c) = try Self.chart(in: dir)
        let lab = try Self.cgats(dir, name: "lab.cie", fields: ["LAB_L", "LAB_A", "LAB_B"]) { i in
            i == 5 ? ["1e300", "0", "0"] : ["50", "0", "0"]
        }
        let nm = (0..<36).map { "SPEC_\(380 + 10 * $0)" }
        let spectral = try Self.cgats(dir, name: "spectral.ti3", fields: nm) { i in
            (0..<36).map { j in i == 3 && j == 10 ? "1e308" : "0.5" }
        }
        for reference in [lab, spectral] {
            for command in [["compare", dng, "--chart", c, "-o", dir + "/o"], ["profile", "fit", dng, "--chart", c, "-o", dir + "/p.dcp"]] {
                let r = try CLIProcess.run(command + ["--reference", reference])
                #expect(!r.signalled, "\(command) \(reference): trapped (\(r.stderr))")
                #expect(r.status == 2 && r.errorLines.count == 1 && r.stderr.contains(reference) && r.stderr.contains("outside"),
                        "\(command) \(reference): \(r.status) \(r.stderr)")
            }
        }
    }

    /// A damaged DCP (a matrix element 50 000; a HueSatMap value scale 3e38, which the table's
    /// Float arithmetic turns into inf) given to `compare --profile`: one line naming the tag,
    /// exit 2, no trap.
    @Test func damagedProfileIsRefusedByTag() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let (dng, c) = try Self.chart(in: dir)
        try Self.dcp(dir + "/matrix.dcp", scale: 50_000 / 0.7)
        try Self.dcp(dir + "/table.dcp", valueScale: 3e38)
        for (file, tag) in [("matrix.dcp", "ColorMatrix1"), ("table.dcp", "ProfileHueSatMapData1")] {
            let r = try CLIProcess.run(["compare", dng, "--chart", c, "--profile", "embedded", "--profile", dir + "/" + file, "-o", dir + "/o"])
            #expect(!r.signalled, "\(file): trapped (\(r.stderr))")
            #expect(r.status == 2 && r.errorLines.count == 1 && r.stderr.contains(tag), "\(file): \(r.status) \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/o/report.json"))
    }

    /// Unit level: the colour paths clamp before converting to Int (NaN/inf hue or saturation,
    /// a NaN XYZ swatch) instead of trapping.
    @Test func colourPathsSurviveNonFiniteValues() {
        #expect(CompareRunner.srgbHex(SIMD3(.nan, .infinity, -.infinity)).count == 6)
        #expect(CompareRunner.srgbHex(SIMD3(.nan, .nan, .nan)) == "000000")
        for (h, s) in [(Double.nan, 0.5), (1.0, Double.infinity), (1e300, 1e300), (-1e300, -5)] {
            let w = HueSatMapFit.weights(hue: h, saturation: s)
            #expect(w.count == 4 && w.allSatisfy { $0.1.isFinite })
        }
    }

    // MARK: Option files: kind, size and header before any read

    /// A 2 GiB sparse file, a FIFO, a directory and /dev/zero as every option file: refused by
    /// size or kind with a true one-line message, exit 2, quickly (nothing is read). Before, the
    /// 2 GiB file was read whole (4 GB, 25–30 s) and a FIFO was "permission denied".
    @Test func hostileOptionFilesAreRefusedBeforeReading() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let (dng, c) = try Self.chart(in: dir)
        try Self.sparse(dir + "/big")
        #expect(mkfifo(dir + "/fifo", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        let kinds: [(String, String)] = [(dir + "/big", "larger than"), (dir + "/fifo", "is a FIFO"),
                                         (dir + "/folder", "is a directory"), ("/dev/zero", "is a character device")]
        for (file, words) in kinds {
            let commands: [[String]] = [
                ["develop", dng, dng, "-o", dir + "/d", "--profile", file],
                ["develop", dng, "-o", dir + "/d", "--matte", "skin=" + file],
                ["compare", dng, "--chart", c, "-o", dir + "/o", "--reference", file],
                ["compare", dng, "--chart", c, "-o", dir + "/o", "--profile", file],
                ["profile", "fit", dng, "--chart", c, "-o", dir + "/p.dcp", "--reference", file],
                ["constant-colour", "--ambient", dng, "--flash", dng, "-o", dir + "/cc", "--flash-profile", file],
                ["constant-colour", "--ambient", dng, "--flash", dng, "-o", dir + "/cc", "--flash-spectrum", file],
                ["constant-colour", "--pairs", file, "-o", dir + "/cc", "--flash-xy", "0.31,0.33"],
            ]
            for args in commands {
                let start = Date()
                let r = try CLIProcess.run(args, timeout: 30)
                let seconds = Date().timeIntervalSince(start)
                #expect(!r.signalled && !r.timedOut, "\(args)")
                #expect(r.status == 2, "\(args): exit \(r.status) \(r.stderr)")
                #expect(r.errorLines.count == 1 && r.stderr.contains(file) && r.stderr.contains(words), "\(args): \(r.stderr)")
                #expect(seconds < 5, "\(args): \(seconds) s")
            }
        }
    }

    // MARK: Data loss: no output over an input

    /// `convert X.dng -o <X's folder> --overwrite` and `extract --overwrite` into the DNG's own
    /// folder, where the names coincide: both refuse (exit 1, one line) and every file keeps its
    /// bytes. Before, convert replaced the DNG with its own conversion and extract replaced the DNG
    /// with the original it embedded.
    @Test func convertAndExtractIntoTheirOwnFolderLoseNothing() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try #require(try ConvertCommandTests.inputs(in: dir, count: 1, preferRaw: false).first)
        let before = Self.bytes(input)
        let onto = try CLIProcess.run(["convert", input, "-o", dir + "/in", "--overwrite", "--embed-original"])
        #expect(onto.status == 1 && onto.errorLines.count == 1 && onto.stderr.contains("input of this run"), "\(onto.stderr)")
        #expect(Self.bytes(input) == before)
        // A DNG converted from a DNG embeds its own name: extracting beside it would replace it.
        let conv = try CLIProcess.run(["convert", input, "-o", dir + "/out", "--embed-original", "-q"])
        #expect(conv.status == 0, "\(conv.stderr)")
        let converted = dir + "/out/" + (input as NSString).lastPathComponent
        let convertedBytes = try #require(Self.bytes(converted))
        let x = try CLIProcess.run(["extract", converted, "-o", dir + "/out", "--overwrite"])
        #expect(x.status == 1 && x.errorLines.count == 1 && x.stderr.contains("input of this run"), "\(x.stderr)")
        #expect(Self.bytes(converted) == convertedBytes)
        // Into the original's folder the embedded original equals the file there: the input survives too.
        let y = try CLIProcess.run(["extract", converted, "-o", dir + "/in", "--overwrite"])
        #expect(y.status == 0, "\(y.stderr)")
        #expect(Self.bytes(input) == before && Self.bytes(converted) == convertedBytes)
    }

    /// Two DNGs embedding the same original name, extracted into one folder with --overwrite: the
    /// first is written, the second fails with a line naming the first (before: both "succeeded",
    /// the second replaced the first).
    @Test func extractNeverGivesTwoOutputsOneName() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let ins = try ConvertCommandTests.inputs(in: dir, count: 2, preferRaw: false)
        var dngs: [String] = []
        for (i, input) in ins.enumerated() {
            // Same name, different content: a/x.dng and b/x.dng.
            let sub = dir + "/src\(i)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: input, toPath: sub + "/x.dng")
            let c = try CLIProcess.run(["convert", sub + "/x.dng", "-o", dir + "/conv\(i)", "--embed-original", "-q"])
            #expect(c.status == 0, "\(c.stderr)")
            dngs.append(dir + "/conv\(i)/x.dng")
        }
        let x = try CLIProcess.run(["extract", dngs[0], dngs[1], "-o", dir + "/x", "--overwrite"])
        #expect(x.status == 1 && x.errorLines.count == 1 && x.stderr.contains("already written in this run from \(dngs[0])"), "\(x.stderr)")
        #expect(Self.bytes(dir + "/x/x.dng") == Self.bytes(ins[0]))
    }

    // MARK: Stale results

    /// A converted DNG damaged afterwards (one byte, same size) or replaced (other size) is no
    /// longer "up to date": the rerun converts it again and it verifies. Before, the manifest
    /// trusted any file at the output's name.
    @Test func damagedConvertedDNGIsRedone() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try #require(try ConvertCommandTests.inputs(in: dir, count: 1, preferRaw: false).first)
        let output = dir + "/out/" + (input as NSString).lastPathComponent
        let first = try CLIProcess.run(["convert", input, "-o", dir + "/out", "--report", dir + "/r1.json"])
        #expect(first.status == 0, "\(first.stderr)")
        let again = try CLIProcess.run(["convert", input, "-o", dir + "/out", "--report", dir + "/r2.json"])
        #expect(try Self.statuses(dir + "/r2.json") == ["up-to-date"], "\(again.stdout)")
        let good = try #require(Self.bytes(output))
        var damaged = good
        damaged[damaged.count / 2] ^= 0x5A
        try damaged.write(to: URL(fileURLWithPath: output))
        let redo = try CLIProcess.run(["convert", input, "-o", dir + "/out", "--report", dir + "/r3.json"])
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(try Self.statuses(dir + "/r3.json") == ["converted"])
        #expect(Self.bytes(output) == good)
        try Data("not a DNG".utf8).write(to: URL(fileURLWithPath: output))
        let replaced = try CLIProcess.run(["convert", input, "-o", dir + "/out", "--report", dir + "/r4.json"])
        #expect(try Self.statuses(dir + "/r4.json") == ["converted"], "\(replaced.stderr)")
        #expect(try CLIProcess.run(["verify", output]).status == 0)
    }

    /// Develop with `--profile a.dcp`: editing the DCP's bytes (same path) redoes the output;
    /// so does damaging the output. Before, the recipe hash held the path only.
    @Test func editedProfileAndDamagedOutputAreRedone() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try #require(try ConvertCommandTests.inputs(in: dir, count: 1, preferRaw: false).first)
        let profile = dir + "/a.dcp"
        try Self.dcp(profile)
        func develop(_ n: Int) throws -> [String] {
            let r = try CLIProcess.run(["develop", input, "-o", dir + "/out", "--profile", profile, "--report", dir + "/r\(n).json"])
            #expect(r.status == 0, "\(r.stderr)")
            return try Self.statuses(dir + "/r\(n).json")
        }
        #expect(try develop(1) == ["developed"])
        #expect(try develop(2) == ["up-to-date"])
        try Self.dcp(profile, scale: 1.2)
        #expect(try develop(3) == ["developed"])
        #expect(try develop(4) == ["up-to-date"])
        let jpeg = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").first { $0.hasSuffix(".jpg") })
        var damaged = try #require(Self.bytes(dir + "/out/" + jpeg))
        damaged[damaged.count / 2] ^= 0x5A
        try damaged.write(to: URL(fileURLWithPath: dir + "/out/" + jpeg))
        #expect(try develop(5) == ["developed"])
    }
}
