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

    /// Triple-illuminant charts (DNG 1.6 profiles; `SyntheticChart.Camera.third`), not among
    /// `all`: a Luther camera (14-bit RGGB, 180×120) whose response differs per calibration
    /// illuminant, each shot under `illuminant`. Used by the triple-illuminant tests, and written
    /// as they are for the DNG SDK comparison (`TripleIlluminantTests`).
    public struct TripleSpec: Sendable {
        public var name: String
        public var illuminants: (Int, Int)
        public var third: SyntheticChart.Camera.ThirdCalibration
        public var illuminant: Chromaticity
        /// ForwardMatrix1/2/3, CameraCalibration1/2/3, AnalogBalance and HueSatMap 1/2/3 as well
        /// as ColorMatrix1/2/3 (the HueSatMaps change colours: no colorimetric truth).
        public var full: Bool
        public var fileName: String { "\(name).dng" }
        public var camera: SyntheticChart.Camera {
            var c = SyntheticChart.Camera(linear: true, forwardMatrix: full,
                                          cameraCalibration: full ? SyntheticChart.Camera.sampleCameraCalibration : nil,
                                          analogBalance: full ? SyntheticChart.Camera.sampleAnalogBalance : nil,
                                          calibrationIlluminants: illuminants)
            c.third = third
            c.hueSatMaps = full
            return c
        }
        public func chart() -> SyntheticChart {
            SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: illuminant, width: 180, height: 120, camera: camera)
        }
    }

    public static let triple: [TripleSpec] = [
        // StdA / D50 / D75, shot at 6200 K (between D50 and D75), slightly off the locus.
        TripleSpec(name: "triple-A-D50-D75-6200K", illuminants: (17, 23),
                   third: .init(illuminant: 22), illuminant: ColorMath.temperatureTintToXY(kelvin: 6200, tint: 4), full: false),
        // StdA / D65 / Other (IlluminantData3: 4200 K, tint +8, a fluorescent-like light), shot at 5200 K.
        TripleSpec(name: "triple-A-D65-Other-5200K", illuminants: (17, 21),
                   third: .init(illuminant: 255, illuminantData: ColorMath.temperatureTintToXY(kelvin: 4200, tint: 8)),
                   illuminant: ColorMath.temperatureTintToXY(kelvin: 5200, tint: 2), full: false),
        // As the first with ForwardMatrix1/2/3, CameraCalibration1/2/3, AnalogBalance, HueSatMap 1/2/3.
        TripleSpec(name: "triple-A-D50-D75-6200K-FM", illuminants: (17, 23),
                   third: .init(illuminant: 22), illuminant: ColorMath.temperatureTintToXY(kelvin: 6200, tint: 4), full: true),
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

    /// Writes every `triple` DNG into `directory` (for the DNG SDK comparison).
    public static func writeTriple(to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try triple.map { spec in
            let path = URL(fileURLWithPath: directory).appendingPathComponent(spec.fileName).path
            try DNGWriter.write(spec.chart().makeRawImage(), to: path, options: DNGWriteOptions(dateTime: "2026:01:01 00:00:00"))
            return path
        }
    }
}
