import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// Measures metadata reading of a 50 MB DNG. Runs only with DNG_BENCH=1 (tests must not depend
/// on timing); prints the numbers and checks that parsing shares, not copies, the buffer.
@Suite struct DNGPerformanceTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DNG_BENCH"] != nil))
    func metadataOf50MBDNG() throws {
        let w = 5000, h = 5000
        let image = RawImage(width: w, height: h, samplesPerPixel: 1,
                             pixels: [UInt16](repeating: 1000, count: w * h),
                             metadata: DNGTestSupport.fullMetadata(cfa: .rggb, bits: 14, width: w, height: h, spp: 1))
        let path = DNGTestSupport.tempPath("bench-50mb.dng")
        defer { unlink(path) }
        let clock = ContinuousClock()
        let writeTime = try clock.measure { try DNGWriter.write(image, to: path, options: DNGWriteOptions(rowsPerStrip: 256)) }
        let bytes = try TIFFFile.readBytes(path: path)
        var best = Duration.seconds(1000)
        for _ in 0..<20 {
            let t = try clock.measure { _ = try DNGMetadataReader.read(bytes, path: path) }
            best = min(best, t)
        }
        var bestFile = Duration.seconds(1000)
        for _ in 0..<5 {
            let t = try clock.measure { _ = try DNGMetadataReader.read(contentsOf: path) }
            bestFile = min(bestFile, t)
        }
        print("BENCH file \(bytes.count) bytes; write \(writeTime); metadata from bytes best \(best); from file (read + parse) best \(bestFile)")
        #expect(bytes.count > 50_000_000)
    }
}
