import DarkroomTestSupport
import Foundation
import Testing

/// `--format exr` and `--format tiff --bit-depth 32` on the command line: the files are written
/// with their extensions; a float output mixed with JPEG/HEIF or 8/16-bit TIFF is a usage error
/// (exit 2, one line naming the flag), checked before any file is read.
@Suite("CLI: float outputs")
struct FloatOutputCLITests {
    @Test func floatOutputsAndTheirUsageErrors() throws {
        guard CLIProcess.binary != nil else { return }
        let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let ok = try CLIProcess.run(["develop", sample, "--format", "exr,tiff", "--bit-depth", "32", "--tone", "linear", "-o", dir, "--log", "text"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let exr = try Data(contentsOf: URL(fileURLWithPath: dir + "/chart-rggb-12bit-D65.exr"))
        #expect(Array(exr.prefix(4)) == [0x76, 0x2F, 0x31, 0x01])
        let tif = try Data(contentsOf: URL(fileURLWithPath: dir + "/chart-rggb-12bit-D65.tif"))
        #expect(Array(tif.prefix(2)) == [0x49, 0x49] || Array(tif.prefix(2)) == [0x4D, 0x4D])
        for (args, flag) in [(["--format", "exr,jpeg"], "--format"), (["--format", "tiff", "--bit-depth", "32", "--format", "tiff,heif"], "--bit-depth"),
                             (["--format", "exr,tiff", "--bit-depth", "16"], "--format"), (["--bit-depth", "24", "--format", "tiff"], "--bit-depth")] {
            let r = try CLIProcess.run(["develop", sample, "-o", dir + "/x"] + args)
            #expect(r.status == 2 && r.errorLines.count == 1 && r.stderr.contains(flag), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/x"))
    }
}
