import DarkroomCore
import Foundation

/// The result of `darkroom compare`, written as `report.json` (schema in README, "Comparing
/// profiles (compare)"). Every number is rounded to 6 decimals, so the file is stable and
/// byte-identical for any thread count.
public struct CompareReport: Sendable, Codable, Equatable {
    /// One patch under one profile and stage. Colours: camera RGB is camera-native (0…1 of the
    /// white level, not white-balanced); XYZ is D50-relative with the perfect diffuser at Y = 1
    /// (measured values after normalisation); Lab is CIELAB D50; sRGB is 8-bit hex (clipped).
    public struct Patch: Sendable, Codable, Equatable {
        public var id: String
        public var name: String
        public var cameraRGB: [Double]
        /// Per-channel standard deviation of the patch's pixels (noise), camera-native.
        public var cameraSigma: [Double]
        /// Pixels sampled and kept by the outlier rejection.
        public var pixels: Int
        public var keptPixels: Int
        /// A channel reached the clipping point in some sampled pixel.
        public var clipped: Bool
        public var referenceXYZ: [Double]
        public var measuredXYZ: [Double]
        public var referenceLab: [Double]
        public var measuredLab: [Double]
        public var referenceSRGB: String
        public var measuredSRGB: String
        public var deltaE2000: Double
        public var deltaL: Double
        public var deltaC: Double
        public var deltaH: Double
        public var deltaE76: Double
        public var deltaE94: Double
    }

    /// ΔE2000 statistics over the patches; `worst` lists patch ids, largest ΔE first.
    public struct Summary: Sendable, Codable, Equatable {
        public var mean: Double
        public var median: Double
        public var p90: Double
        public var max: Double
        public var worst: [String]
    }

    /// One rendering stage: `matrix` (camera → XYZ only), `hue-sat-map` (+ ProfileHueSatMap),
    /// `look-table` (+ ProfileLookTable). The last stage present is what `develop --tone linear` renders.
    public struct Stage: Sendable, Codable, Equatable {
        public var stage: String
        /// The normalisation factor applied to the measured XYZ.
        public var scale: Double
        public var summary: Summary
        public var patches: [Patch]
    }

    /// One file × illuminant × profile.
    public struct Run: Sendable, Codable, Equatable {
        public var file: String
        public var illuminant: String
        /// Chromaticity of the illuminant spectrum the reference was computed under.
        public var illuminantXY: [Double]
        public var profile: String
        /// "embedded" or the `.dcp` path.
        public var profileSource: String
        /// The render's white (DNG colour model), its CCT and tint, the ColorMatrix1 weight.
        public var whiteXY: [Double]
        public var kelvin: Double
        public var tint: Double
        public var weight1: Double
        public var cameraNeutral: [Double]
        /// Exposure of the render (BaselineExposure + offset), stops.
        public var exposureStops: Double
        /// Patch-grid corners in the developed image (top-left, top-right, bottom-right, bottom-left).
        public var chartCorners: [[Double]]
        public var chartFound: Bool
        public var stages: [Stage]
        public var warnings: [String]
    }

    /// One profile × illuminant over all files: the final stage's ΔE2000 statistics over every patch.
    public struct Rank: Sendable, Codable, Equatable {
        public var rank: Int
        public var profile: String
        public var illuminant: String
        public var patches: Int
        public var mean: Double
        public var median: Double
        public var p90: Double
        public var max: Double
    }

    public var tool: String
    public var reference: String
    public var normalisation: String
    public var runs: [Run]
    /// Best (lowest mean ΔE2000) first, per illuminant.
    public var ranking: [Rank]
    /// One line per file or profile left out (undecodable, no chart, non-finite colours); absent
    /// when everything was measured.
    public var failures: [String]? = nil

    /// `report.json`: sorted keys, pretty-printed.
    public func jsonBytes() throws -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try e.encode(self)) + [10]
    }

    /// `patches.csv`: one line per run × stage × patch.
    public func csvBytes() -> [UInt8] {
        var s = "file,illuminant,profile,stage,id,name,cam_r,cam_g,cam_b,sigma_r,sigma_g,sigma_b,clipped,"
            + "ref_X,ref_Y,ref_Z,meas_X,meas_Y,meas_Z,ref_L,ref_a,ref_b,meas_L,meas_a,meas_b,ref_srgb,meas_srgb,"
            + "dE2000,dL,dC,dH,dE76,dE94\n"
        func q(_ t: String) -> String { t.contains(",") || t.contains("\"") ? "\"" + t.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : t }
        func n(_ v: [Double]) -> String { v.map { Self.format($0) }.joined(separator: ",") }
        for run in runs {
            for stage in run.stages {
                for p in stage.patches {
                    s += [q(run.file), q(run.illuminant), q(run.profile), stage.stage, p.id, q(p.name),
                          n(p.cameraRGB), n(p.cameraSigma), p.clipped ? "1" : "0", n(p.referenceXYZ), n(p.measuredXYZ),
                          n(p.referenceLab), n(p.measuredLab), "#" + p.referenceSRGB, "#" + p.measuredSRGB,
                          n([p.deltaE2000, p.deltaL, p.deltaC, p.deltaH, p.deltaE76, p.deltaE94])].joined(separator: ",") + "\n"
                }
            }
        }
        return Array(s.utf8)
    }

    /// A number with 6 decimals, trailing zeros removed ("0.5", "12", "-0.000123").
    static func format(_ v: Double) -> String {
        var t = String(format: "%.6f", v)
        if t.contains(".") { while t.hasSuffix("0") { t.removeLast() }; if t.hasSuffix(".") { t.removeLast() } }
        return t == "-0" ? "0" : t
    }

    /// Rounds to 6 decimals (what the report stores).
    static func r6(_ v: Double) -> Double { v.isFinite ? (v * 1e6).rounded() / 1e6 : 0 }

    /// A CGATS `.ti3` (ArgyllCMS layout, `CTI3`) pairing the measured camera RGB (0…100, camera-native)
    /// with the reference XYZ (D50, 0…100) of each patch: the input profile fitters read.
    public static func ti3Bytes(run: Run, stage: Stage) -> [UInt8] {
        var s = "CTI3\n\nDESCRIPTOR \"Darkroom compare: \(run.file) under \(run.illuminant)\"\n"
        s += "ORIGINATOR \"Darkroom \(DarkroomVersion.string)\"\nDEVICE_CLASS \"INPUT\"\nCOLOR_REP \"XYZ_RGB\"\n\n"
        s += "NUMBER_OF_FIELDS 7\nBEGIN_DATA_FORMAT\nSAMPLE_ID RGB_R RGB_G RGB_B XYZ_X XYZ_Y XYZ_Z\nEND_DATA_FORMAT\n\n"
        s += "NUMBER_OF_SETS \(stage.patches.count)\nBEGIN_DATA\n"
        for p in stage.patches {
            s += ([p.id] + (p.cameraRGB + p.referenceXYZ).map { format($0 * 100) }).joined(separator: " ") + "\n"
        }
        s += "END_DATA\n"
        return Array(s.utf8)
    }
}
