import DarkroomCore
import Foundation

/// The DNGs in `Samples/`: synthetic colour charts whose expected colours are known exactly
/// (`SyntheticChart`), written by our own `DNGWriter`. They cover all four CFA orders, 12 and
/// 14 bits, and illuminants D65 and A, so `make test` can check ΔE2000 end to end.
public enum SyntheticSamples {
    public struct Spec: Sendable {
        public var name: String
        public var cfa: CFAPattern
        public var bits: Int
        public var illuminantName: String
        public var illuminant: Chromaticity
        public var fileName: String { "\(name).dng" }
        public func chart() -> SyntheticChart {
            SyntheticChart(cfa: cfa, bitsPerSample: bits, illuminant: illuminant)
        }
    }

    public static let all: [Spec] = [
        Spec(name: "chart-rggb-12bit-D65", cfa: .rggb, bits: 12, illuminantName: "D65", illuminant: ColorMath.d65),
        Spec(name: "chart-grbg-14bit-A", cfa: .grbg, bits: 14, illuminantName: "A", illuminant: ColorMath.illuminantA),
        Spec(name: "chart-bggr-12bit-A", cfa: .bggr, bits: 12, illuminantName: "A", illuminant: ColorMath.illuminantA),
        Spec(name: "chart-gbrg-14bit-D65", cfa: .gbrg, bits: 14, illuminantName: "D65", illuminant: ColorMath.d65),
    ]

    /// Writes every sample DNG into `directory`, replacing older versions.
    public static func writeAll(to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written: [String] = []
        for spec in all {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(spec.fileName).path
            try DNGWriter.write(spec.chart().makeRawImage(), to: path, options: DNGWriteOptions())
            written.append(path)
        }
        return written
    }
}
