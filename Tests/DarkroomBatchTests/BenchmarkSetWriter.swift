import DarkroomCore
import DarkroomIO
import Foundation
import Testing

/// Writes the batch throughput set when `DARKROOM_BENCH_SET=DIR` is set (otherwise disabled):
/// 16 synthetic 600x400 chart DNGs (4 CFA orders × 4 copies) and 4 synthetic 4000x3000 ones.
@Suite("Batch benchmark set")
struct BenchmarkSetWriter {
    static let target = ProcessInfo.processInfo.environment["DARKROOM_BENCH_SET"]

    @Test(.enabled(if: target != nil)) func writeBenchmarkSet() throws {
        guard let dir = Self.target else { return }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for i in 0..<16 {
            let spec = SyntheticSamples.all[i % 4]
            try DNGWriter.write(spec.chart().makeRawImage(), to: dir + "/small-\(i)-\(spec.name).dng", options: DNGWriteOptions())
        }
        for i in 0..<4 {
            let spec = SyntheticSamples.all[i]
            let chart = SyntheticChart(cfa: spec.cfa, bitsPerSample: spec.bits, illuminant: spec.illuminant, width: 4000, height: 3000)
            try DNGWriter.write(chart.makeRawImage(), to: dir + "/large-\(i)-\(spec.name).dng", options: DNGWriteOptions())
        }
        #expect((try FileManager.default.contentsOfDirectory(atPath: dir)).filter { $0.hasSuffix(".dng") }.count >= 20)
    }
}
