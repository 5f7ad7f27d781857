import DarkroomCore
import Foundation

extension ConstantColourDeveloper {
    /// What `darkroom constant-colour --explain` prints for a solved pair: each frame's exposure
    /// facts and the exposure ratio (step 2), the flash profile's source, white and camera →
    /// XYZ D50 matrix (step 5), the registration shift and residual (step 3), the flash/ambient
    /// ratio, the masks' fractions, the predicted colour error and the confidence (step 6), and
    /// whether the fallback would be written.
    public static func explanation(_ s: Solved, options: ConstantColourOptions) -> String {
        let r = s.result
        func f(_ v: Double, _ d: Int = 3) -> String { v.isFinite ? String(format: "%.\(d)f", v) : "n/a" }
        func exposure(_ frame: LoadedFrame) -> String {
            let x = frame.metadata.exif
            let be = (frame.metadata.baselineExposure ?? 0) + (frame.metadata.profile?.baselineExposureOffset ?? 0)
            let t = x.exposureTime.map { $0 >= 1 ? f($0, 2) + " s" : "1/" + f(1 / $0, 0) + " s" } ?? "?"
            return "\(t), ISO \(x.isoSpeed.map(String.init) ?? "?"), f/\(x.fNumber.map { f($0, 1) } ?? "?"), BaselineExposure \(f(be, 2))"
        }
        let m = s.flashCameraToXYZD50.m
        let rows = (0..<3).map { i in (0..<3).map { f(m[i * 3 + $0], 4) }.joined(separator: " ") }
        let fractions = r.fractions.keys.sorted().map { "\($0) \(f(100 * (r.fractions[$0] ?? 0), 2)) %" }
        var predicted = r.predictedDeltaE.enumerated().filter { r.confidence[$0.offset] > 0 && $0.element.isFinite }.map(\.element)
        predicted.sort()
        let medianPredicted = predicted.isEmpty ? Double.nan : Double(predicted[predicted.count / 2])
        let high = Double(r.confidence.filter { $0 >= 128 }.count) / Double(max(1, r.confidence.count))
        let writeFallback: Bool
        switch options.fallback {
        case .always: writeFallback = true
        case .never: writeFallback = false
        case .auto: writeFallback = r.centreWeightedConfidence < options.minConfidence
        }
        let p = options.parameters
        return """
            \(s.ambient.path) + \(s.flash.path) (\(r.width)x\(r.height))
              ambient frame      \(exposure(s.ambient))
              flash frame        \(exposure(s.flash))
              exposure ratio     \(f(r.ambientScale, 4)) (ambient frame × this = its share of the flash frame)
              flash profile      \(s.flashSource), white xy (\(f(s.flashWhite.x, 4)), \(f(s.flashWhite.y, 4)))
              camera → XYZ D50   [\(rows.joined(separator: "; "))]
              registration       dx \(r.registration.dx), dy \(r.registration.dy), residual \(f(r.registration.residual)) (1 − ZNCC of the edge images)
              flash/ambient      median \(f(r.medianFlashRatio))
              masks              \(fractions.joined(separator: ", "))
              predicted ΔE2000   median \(f(medianPredicted, 2)) over the pixels with confidence > 0
              confidence         \(f(r.centreWeightedConfidence)) centre-weighted (σ \(f(p.centreSigma, 2)) of the half-size); \(f(100 * high, 1)) % of pixels ≥ 128
              fallback           \(writeFallback ? "would be written" : "not written") (--fallback \(options.fallback.rawValue), --min-confidence \(f(options.minConfidence, 2)))
              parameters         ratio box \(2 * p.ratioRadius + 1) px, ρ½ \(f(p.halfConfidenceRatio, 2)), ΔE½ \(f(p.halfConfidenceDeltaE, 2)), ambient uncertainty \(f(100 * p.ambientScaleUncertainty, 1)) %, clip \(f(p.clipLevel, 2))
            """
    }
}
