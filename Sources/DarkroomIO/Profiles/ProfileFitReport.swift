import DarkroomCore
import Foundation

/// The report of `darkroom profile fit`, written as `NAME.fit.json` and `NAME.fit.txt` next to the
/// profile. Numbers are rounded to 6 decimals; matrices are row-major. ΔE2000 statistics are
/// in-sample (the fitting patches themselves), measured XYZ scaled by the white patch's Y, as
/// `compare --normalise white` does.
public struct ProfileFitReport: Sendable, Codable, Equatable {
    public struct Summary: Sendable, Codable, Equatable {
        public var mean: Double
        public var median: Double
        public var p90: Double
        public var max: Double
        /// Ids of the (up to) five worst patches, largest ΔE2000 first.
        public var worst: [String]
    }

    /// One calibration illuminant's matrices and fit.
    public struct CalibrationSet: Sendable, Codable, Equatable {
        /// 1 or 2 (`ColorMatrix1`/`ForwardMatrix1` or …2).
        public var set: Int
        public var illuminant: String
        public var illuminantXY: [Double]
        /// The `CalibrationIlluminant` EXIF code written (255: the white is in IlluminantData).
        public var calibrationIlluminant: Int
        public var files: [String]
        /// Patches fitted (unclipped) and the neutral ones used for the camera neutral.
        public var patches: Int
        public var neutralPatches: [String]
        public var cameraNeutral: [Double]
        public var colorMatrix: [Double]
        /// Absent for a ColorMatrix-only fit (`--no-forward-matrix`).
        public var forwardMatrix: [Double]?
        public var leastSquaresForwardMatrix: [Double]?
        /// ΔE2000 of the least-squares start and of the refined ForwardMatrix.
        public var leastSquares: Summary
        public var fitted: Summary
        /// With `--hue-sat-map`: the matrices then the fitted HueSatMap.
        public var hueSatMap: Summary?
        public var iterations: Int
    }

    public var tool: String
    public var method: String
    public var reference: String
    public var profileName: String
    public var uniqueCameraModel: String?
    /// The `.dcp` path.
    public var profile: String
    public var sets: [CalibrationSet]

    /// One line describing the fitting method.
    public static func methodText(refine: Bool, forwardMatrix: Bool = true) -> String {
        guard forwardMatrix else {
            return "ColorMatrix only: least squares XYZ→camera with CM·white = camera neutral"
                + (refine ? ", refined by Nelder–Mead on mean ΔE2000 (white-patch normalised) through Bradford(white→D50)·CM⁻¹" : "")
                + "; matrices rounded to 1e-4"
        }
        return "ColorMatrix: least squares XYZ→camera with CM·white = camera neutral; ForwardMatrix: least squares balanced camera→XYZ D50 with FM·(1,1,1) = D50"
            + (refine ? ", refined by Nelder–Mead on mean ΔE2000 (white-patch normalised) over FM and the neutral" : "") + "; matrices rounded to 1e-4"
    }

    /// The report as sorted-key, pretty-printed JSON.
    public func jsonBytes() throws -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try e.encode(self)) + [0x0A]
    }

    /// The human-readable report.
    public func text() -> String {
        var s = "\(profileName) (\(uniqueCameraModel ?? "no UniqueCameraModel")) → \(profile)\n"
        s += "reference \(reference); \(method)\n"
        func f(_ v: Double) -> String { String(format: "%.3f", v) }
        func matrix(_ m: [Double]) -> String {
            stride(from: 0, to: m.count, by: 3).map { r in m[r..<min(r + 3, m.count)].map { String(format: "%8.4f", $0) }.joined(separator: " ") }
                .joined(separator: " | ")
        }
        for set in sets {
            s += "\nset \(set.set): \(set.illuminant) (x \(set.illuminantXY.first.map(f) ?? "?"), y \(set.illuminantXY.last.map(f) ?? "?")), CalibrationIlluminant\(set.set) \(set.calibrationIlluminant)\n"
            s += "  files: \(set.files.joined(separator: ", "))\n"
            s += "  patches \(set.patches), neutral \(set.neutralPatches.joined(separator: " ")), camera neutral \(set.cameraNeutral.map(f).joined(separator: " "))\n"
            s += "  ColorMatrix\(set.set)   \(matrix(set.colorMatrix))\n"
            if let fm = set.forwardMatrix { s += "  ForwardMatrix\(set.set) \(matrix(fm))\n" }
            s += "  in-sample ΔE2000 least squares: mean \(f(set.leastSquares.mean)) max \(f(set.leastSquares.max))\n"
            s += "  in-sample ΔE2000 fitted:        mean \(f(set.fitted.mean)) median \(f(set.fitted.median)) p90 \(f(set.fitted.p90)) max \(f(set.fitted.max)) (worst \(set.fitted.worst.joined(separator: " ")))\n"
            if let h = set.hueSatMap {
                s += "  in-sample ΔE2000 + HueSatMap:   mean \(f(h.mean)) median \(f(h.median)) p90 \(f(h.p90)) max \(f(h.max)) (worst \(h.worst.joined(separator: " ")))\n"
            }
        }
        return s
    }
}
