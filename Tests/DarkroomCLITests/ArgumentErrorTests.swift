import DarkroomTestSupport
import Foundation
import Testing

/// Every bad argument exits 2 with one line `darkroom: error: --flag: reason`, never a trap:
/// a table over every numeric flag with zero, negative, NaN, infinite, huge and non-numeric
/// values, run through the real binary. Each probe is either accepted (the table says which,
/// with the documented meaning) or a usage error naming the flag.
@Suite("CLI: argument errors", .serialized)
struct ArgumentErrorTests {
    static let probes = ["0", "-1", "nan", "inf", "-inf", "9223372036854775807", "-9223372036854775808",
                         "1e19", "99999999999999999999", "abc", ""]

    /// (command prefix, flag, probes accepted). `recipe` resolves and prints without touching
    /// files, so it checks the recipe flags; `develop` over an empty folder checks the batch flags.
    static func table(empty: String, sample: String) -> [(prefix: [String], flag: String, accepted: Set<String>)] {
        let recipe = ["recipe"]
        let bayer = ["recipe", "--bayer", "rggb", "--size", "640x480"]
        let develop = ["develop", empty, "-o", empty + "/out", "--quiet"]
        return [
            (develop, "--jobs", []),
            (develop, "--memory", []),
            (develop, "--shard", []),
            (recipe, "--threads", ["0"]),
            (recipe, "--quality", []),
            (recipe, "--exposure", ["0", "-1"]),
            (recipe, "--bit-depth", []),
            (recipe, "--thumbnail-size", ["0"]),
            (recipe, "--tile-size", []),
            (recipe, "--wb", []),
            (recipe, "--wb-rect", []),
            (recipe, "--wb-gains", []),
            (bayer, "--bits", []),
            (bayer, "--black", ["0"]),
            (bayer, "--white", []),
            (bayer, "--stride", []),
            (["recipe", "--bayer", "rggb"], "--size", []),
            (["thumbnail", sample, "-o", empty + "/thumbs"], "--size", []),
        ]
    }

    @Test func numericFlagsTable() throws {
        let dir = NSTemporaryDirectory() + "darkroom-args-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path
        var runs = 0
        for row in Self.table(empty: dir + "/empty", sample: sample) {
            for value in Self.probes {
                // `--flag=value` as well as `--flag value` for negatives: both must reach our parser.
                let forms = value.hasPrefix("-") ? [[row.flag, value], [row.flag + "=" + value]] : [[row.flag, value]]
                for form in forms {
                    let r = try CLIProcess.run(row.prefix + form)
                    runs += 1
                    let what = (row.prefix.first ?? "") + " " + form.joined(separator: " ")
                    #expect(!r.signalled && !r.timedOut, "\(what): crashed or hung")
                    if row.accepted.contains(value) {
                        #expect(r.status == 0, "\(what): expected acceptance, got \(r.status): \(r.stderr)")
                    } else {
                        #expect(r.status == 2, "\(what): expected usage error 2, got \(r.status): \(r.stderr)")
                        #expect(r.errorLines.count == 1, "\(what): \(r.errorLines.count) lines: \(r.stderr)")
                        let line = r.errorLines.first ?? ""
                        #expect(line.hasPrefix("darkroom: error: "), "\(what): \(line)")
                        #expect(line.contains(row.flag), "\(what): message does not name the flag: \(line)")
                        if row.prefix.first != "thumbnail" {
                            #expect(line.hasPrefix("darkroom: error: \(row.flag): "), "\(what): \(line)")
                        }
                    }
                }
            }
        }
        print("argument table: \(runs) runs")
    }

    /// The reproducers of issue 20 that trapped: each is now exit 2 with one line.
    @Test(arguments: [
        ["develop", "x.dng", "-o", "o", "--memory", "1e19"],
        ["develop", "x.dng", "-o", "o", "--threads", "9223372036854775807"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rggb", "--size", "640x480", "--stride", "4611686018427387904"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rggb", "--size", "65535x65535", "--stride", "2147483648", "--white", "1", "--black", "1"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rggb", "--size", "4294967296x4294967296"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rggb", "--size", "640x480", "--stride", "1279"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rggb"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rggb", "--size", "640x480", "--wb-rect", "600,0,41,10"],
        ["develop", "x.dng", "-o", "o", "--bayer", "rgbx", "--size", "640x480"],
        ["develop", "x.dng", "-o", "o", "--bits", "12"],
        ["develop", "x.dng", "-o", "o", "--black", "10"],
        ["develop", "x.dng", "-o", "o", "--white", "1000"],
        ["develop", "x.dng", "-o", "o", "--stride", "2000"],
        ["develop", "x.dng", "-o", "o", "--size", "640x480"],
        ["info", "x.dng", "--bits", "12"],
        ["explain", "x.dng", "--stride", "2000"],
        ["info", "x.dng", "--exposure", "1"],
        ["develop", "x.dng", "-o", "o", "--format", "jpeg", "--bit-depth", "16"],
        ["develop", "x.dng", "-o", "o", "--exposure"],
        ["develop", "x.dng", "-o", "o", "--bogus"],
        ["develop", "x.dng", "-o", "o", "--name", "{nope}"],
        ["develop", "x.dng", "-o", "o", "--mattes", "halo"],
        ["develop", "x.dng", "-o", "o", "--matte", "skin"],
        ["develop", "x.dng", "-o", "o", "--opcodes", "list4"],
        ["develop", "x.dng", "-o", "o", "--wb", "hot"],
        ["develop", "x.dng", "-o", "o", "--wb", "1000"],
        ["develop", "x.dng", "-o", "o", "--wb", "5000,200"],
        ["develop", "x.dng", "-o", "o", "--wb", "xy:0.7,0.5"],
        ["develop", "x.dng", "-o", "o", "--shard", "4/3"],
        ["develop", "x.dng", "-o", "o", "--recipe", "/nonexistent/r.yaml"],
    ])
    func usageErrors(args: [String]) throws {
        let r = try CLIProcess.run(args)
        #expect(!r.signalled)
        #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
        #expect(r.errorLines.count == 1 && r.errorLines[0].hasPrefix("darkroom: error: "), "\(r.stderr)")
    }

    /// Negative numbers are values, not options; a patch outside the image fails that file
    /// (exit 1, one line naming the file and the flag) in develop and explain.
    @Test func negativeValuesAndRectOutsideImage() throws {
        let dir = NSTemporaryDirectory() + "darkroom-args-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path
        for form in [["--exposure", "-1"], ["--exposure=-1"], ["--exposure", "-0.5e1"]] {
            let r = try CLIProcess.run(["recipe"] + form)
            #expect(r.status == 0, "\(form): \(r.stderr)")
            #expect(r.stdout.contains(form == ["--exposure", "-0.5e1"] ? "exposure: -5\n" : "exposure: -1\n"), "\(r.stdout)")
        }
        let ok = try CLIProcess.run(["develop", sample, "-o", dir + "/a", "--quiet", "--exposure", "-1", "--thumbnail-size", "0"])
        #expect(ok.status == 0, "\(ok.stderr)")
        for cmd in [["develop", sample, "-o", dir + "/b", "--log", "text"], ["explain", sample]] {
            let r = try CLIProcess.run(cmd + ["--wb-rect", "5000,5000,4,4"])
            #expect(r.status == 1, "\(cmd): \(r.status) \(r.stderr)")
            #expect(r.errorLines == ["darkroom: error: \(sample): invalid recipe: --wb-rect 5000,5000,4,4 is not inside the 584x384 displayed image"],
                    "\(r.stderr)")
        }
        // The largest Bayer geometry the limits allow reaches the decoder's size check without
        // overflowing (65535 rows of 2 GiB): a short file is a per-file failure, not a trap.
        let dump = dir + "/small.raw"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(count: 4096).write(to: URL(fileURLWithPath: dump))
        for cmd in [["develop", dump, "-o", dir + "/c", "--log", "text"], ["info", dump], ["explain", dump]] {
            let r = try CLIProcess.run(cmd + ["--bayer", "rggb", "--size", "65535x65535", "--stride", "2147483648", "--bits", "16"])
            #expect(!r.signalled && r.status == 1, "\(cmd): \(r.status) \(r.stderr)")
            #expect(r.errorLines.count == 1 && r.errorLines[0].hasPrefix("darkroom: error: \(dump): file is truncated"), "\(r.stderr)")
        }
        // A patch inside the 584x384 displayed image develops.
        let inside = try CLIProcess.run(["explain", sample, "--wb-rect", "0,0,584,384"])
        #expect(inside.status == 0, "\(inside.stderr)")
        let edge = try CLIProcess.run(["explain", sample, "--wb-rect", "0,0,585,384"])
        #expect(edge.status == 1, "\(edge.stderr)")
    }

    /// A value that would be silently dropped is refused: nclx for a space it cannot describe,
    /// mattes when no requested format carries planes. Exit 2, one line naming the flag.
    @Test(arguments: [
        (["--format", "heif", "--nclx", "--color-space", "rec2020"], "--nclx"),
        (["--format", "tiff", "--mattes", "gamut"], "--mattes"),
        (["--format", "exr", "--matte", "skin=s.png"], "--matte"),
        (["--strip-metadata", "--thumbnail-size", "512"], "--thumbnail-size"),
    ])
    func droppedValuesAreRefused(args: [String], flag: String) throws {
        let r = try CLIProcess.run(["recipe"] + args)
        #expect(r.status == 2 && r.errorLines.count == 1, "\(r.stderr)")
        #expect(r.errorLines.first?.hasPrefix("darkroom: error: \(flag):") == true, "\(r.stderr)")
        // The same values where they can be honoured resolve.
        let fine = try CLIProcess.run(["recipe", "--format", "heif,tiff", "--nclx", "--color-space", "p3", "--mattes", "gamut"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
