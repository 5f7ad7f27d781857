import CLensfun
import DarkroomCore
@testable import DarkroomIO
import Foundation
import Testing

/// The radial vignetting model `LensfunModifier` evaluates itself (`radialVignetting`, lensfun's
/// pa coefficients with lensfun's coordinate normalisation) against lensfun's own gains
/// (`lf_modifier_apply_color_modification`), at random pixels of full-size frames, for lenses on
/// sensors of crop factor 1, 1.62 (calibrated at 1.622) and 2 (4:3), landscape and portrait.
@Suite("IO: lens vignetting model (lensfun)", .serialized)
struct LensVignettingTests {
    struct Case: Sendable, CustomStringConvertible {
        var maker: String, camera: String, lens: String, focal: Float, aperture: Float, width: Int, height: Int
        var description: String { "\(lens) at \(focal) mm f/\(aperture) on \(camera), \(width)×\(height)" }
    }

    static let cases: [Case] = [
        // Calibrated on full frame, on full frame.
        Case(maker: "Canon", camera: "Canon EOS 5D Mark II", lens: "Canon EF 24-105mm f/4L IS USM", focal: 24, aperture: 4,
             width: 6000, height: 4000),
        // The same, portrait.
        Case(maker: "Canon", camera: "Canon EOS 5D Mark II", lens: "Canon EF 24-105mm f/4L IS USM", focal: 50, aperture: 5.6,
             width: 3744, height: 5616),
        // Another full-frame lens.
        Case(maker: "Canon", camera: "Canon EOS 5D Mark II", lens: "Canon EF 16-35mm f/2.8L II USM", focal: 16, aperture: 2.8,
             width: 5616, height: 3744),
        // APS-C: calibrated at crop factor 1.622, on 1.62.
        Case(maker: "Canon", camera: "Canon EOS 7D", lens: "Canon EF-S 18-55mm f/3.5-5.6 IS", focal: 18, aperture: 3.5,
             width: 5184, height: 3456),
        // Micro Four Thirds (crop factor 2, 4:3 calibration).
        Case(maker: "Olympus Imaging Corp.", camera: "E-P5", lens: "Olympus M.Zuiko Digital ED 14-42mm f/3.5-5.6 II R", focal: 14,
             aperture: 3.5, width: 4608, height: 3456),
    ]

    /// The largest relative difference between the model's gain and lensfun's at `samples` random
    /// pixels (each asked of lensfun alone) and along rows asked in 64-pixel runs (as the tiles
    /// asked lensfun before), and the largest gain.
    static func deviation(_ c: Case, samples: Int) throws -> (alone: Double, runs: Double, maxGain: Double)? {
        guard case .success(let db) = LensDatabase.shared else { return nil }
        let camera = try #require(db.camera(maker: c.maker, model: c.camera), "camera \(c.camera)")
        let lens = try #require(db.lens(camera: camera, maker: nil, model: c.lens), "lens \(c.lens)")
        let m = try #require(LensfunModifier(lens: lens, cropFactor: camera.pointee.CropFactor, width: c.width, height: c.height,
                                             focal: c.focal, aperture: c.aperture, distance: 1000, scale: 1,
                                             flags: Int32(LF_MODIFY_VIGNETTING)))
        #expect(m.appliedFlags & Int32(LF_MODIFY_VIGNETTING) != 0, "\(c): no vignetting data")
        #expect(m.radialVignetting != nil, "\(c): no radial model")
        let model = try #require(m.radialVignetting ?? LensfunModifier.radialModel(
            lens: lens, cropFactor: camera.pointee.CropFactor, width: c.width, height: c.height, focal: c.focal,
            aperture: c.aperture, distance: 1000), "\(c): no pa data")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var alone = 0.0, maxGain = 0.0
        var g: Float = 0
        for k in 0..<samples {
            // Corners first, then random pixels.
            let corners = [(0, 0), (c.width - 1, 0), (0, c.height - 1), (c.width - 1, c.height - 1)]
            let (x, y) = k < 4 ? corners[k] : (next(c.width), next(c.height))
            m.lensfunVignettingGains(x0: x, y: y, count: 1, into: &g)
            let mine = model.gains(x0: x, y: y)[0]
            alone = max(alone, abs(Double(mine) / Double(g) - 1))
            maxGain = max(maxGain, Double(g))
        }
        var runs = 0.0
        var lensfunRow = [Float](repeating: 0, count: 64), modelRow = lensfunRow
        for _ in 0..<200 {
            let y = next(c.height), x0 = next(c.width / 64) * 64
            let n = min(64, c.width - x0)
            lensfunRow.withUnsafeMutableBufferPointer { m.lensfunVignettingGains(x0: x0, y: y, count: n, into: $0.baseAddress!) }
            modelRow.withUnsafeMutableBufferPointer { m.vignettingGains(x0: x0, y: y, count: n, into: $0.baseAddress!) }
            for i in 0..<n { runs = max(runs, abs(Double(modelRow[i]) / Double(lensfunRow[i]) - 1)) }
        }
        return (alone, runs, maxGain)
    }

    @Test(arguments: cases)
    func radialModelGivesLensfunsGains(_ c: Case) throws {
        guard let d = try Self.deviation(c, samples: 20_000) else { return }
        print("vignetting \(c): max relative difference \(d.alone) (pixels alone), \(d.runs) (64-pixel runs); largest gain \(d.maxGain)")
        #expect(d.alone <= 1e-4, "\(c): \(d.alone)")
        #expect(d.runs <= 1e-4, "\(c): \(d.runs)")
        // A model that corrects something: the corners are brightened.
        #expect(d.maxGain > 1.05, "\(c): largest gain \(d.maxGain)")
    }
}
