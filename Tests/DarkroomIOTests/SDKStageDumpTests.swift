import DarkroomCore
import Foundation
import Testing
@testable import DarkroomIO

/// `StageDump`'s file side: the 16-bit TIFF it writes reads back with libtiff as the same image,
/// stage 1 of an uncompressed DNG is its stored samples, and bad input fails with an error naming
/// the file (never a trap, never an output file).
@Suite struct SDKStageDumpTests {
    static let chart = "Samples/chart-grbg-14bit-A.dng"

    @Test(arguments: [1, 2, 3])
    func writtenTIFFReadsBackWithLibTIFF(stage: Int) throws {
        let image = try StageDump.stageImage(path: Self.chart, stage: stage)
        let out = DNGTestSupport.tempPath("stage\(stage)-\(UUID().uuidString).tif", subdirectory: "stagedump")
        defer { unlink(out) }
        try StageDump.write(input: Self.chart, stage: stage, output: out)
        let back = try #require(DNGTestSupport.libtiffRead(out, subIFD: false))
        #expect(back.width == image.width && back.height == image.height && back.spp == image.planes && back.bits == 16)
        #expect(back.photometric == (image.planes == 1 ? 1 : 2))
        #expect(back.pixels == image.pixels)
        #expect(stage == 3 ? image.planes == 3 : image.planes == 1)
        // An existing output is not replaced without `overwrite`.
        #expect(throws: StageDump.Failure.self) { try StageDump.write(input: Self.chart, stage: stage, output: out) }
    }

    /// Stage 1 is the stored image, before OpcodeList1 and linearisation: the decoder's samples
    /// with OpcodeList1 off (this DNG's ActiveArea is the whole image).
    @Test func stage1IsTheStoredSamples() throws {
        let stored = try RawDecoder.decode(path: Self.chart, options: DecodeOptions(applyOpcodeList1: false))
        let one = try StageDump.stageImage(path: Self.chart, stage: 1)
        #expect(one.width == stored.width && one.height == stored.height && one.pixels == stored.pixels)
    }

    @Test func badInputFailsWithTheFileName() throws {
        let dir = DNGTestSupport.tempPath("", subdirectory: "stagedump-bad")
        let truncated = dir + "/truncated.dng"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.chart))
        try bytes.prefix(2000).write(to: URL(fileURLWithPath: truncated))
        defer { unlink(truncated) }
        for (path, stage) in [(Self.chart, 0), (Self.chart, 4), (dir + "/missing.dng", 2), (truncated, 2), (truncated, 1)] {
            do {
                _ = try StageDump.stageImage(path: path, stage: stage)
                Issue.record("\(path) stage \(stage) did not fail")
            } catch {
                #expect(error.description.hasPrefix(path), "\(error.description)")
                #expect(!error.description.contains("\n"))
            }
        }
        let out = dir + "/never.tif"
        #expect(throws: StageDump.Failure.self) { try StageDump.write(input: truncated, stage: 2, output: out) }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
