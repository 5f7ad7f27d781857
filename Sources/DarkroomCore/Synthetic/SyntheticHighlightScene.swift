import Foundation

/// A synthetic 256 × 192 scene whose values exceed the sensor's white on one or two channels, for
/// highlight-reconstruction tests and README pictures: an orange lamp (red clips, then green), a
/// blue sky ramp across the top (blue clips, then green) and a green blob, on a dark ground.
/// Values are white-balanced camera RGB (1 = the balanced clipping point) of the `SyntheticChart`
/// camera under D65.
public enum SyntheticHighlightScene {
    public static let width = 256, height = 192

    /// Balanced camera RGB at (x, y).
    public static func balanced(_ x: Int, _ y: Int) -> SIMD3<Double> {
        var v = SIMD3<Double>(0.08, 0.08, 0.08)
        // Sky: top 56 rows, brightness ramping left → right from 0.5 to 1.9.
        if y < 56 {
            let t = Double(x) / Double(width - 1)
            v = SIMD3(0.42, 0.68, 1.0) * (0.5 + 1.4 * t)
        }
        // Lamp: a disc with a smooth falloff, centre at 2.6 × (1, 0.52, 0.18).
        let dx = Double(x - 80), dy = Double(y - 125), r2 = dx * dx + dy * dy
        let lamp = 2.6 * exp(-r2 / (2 * 22 * 22))
        if lamp > 0.02 { v += SIMD3(1.0, 0.52, 0.18) * lamp }
        // A green blob, centre 1.7 × (0.45, 1, 0.35).
        let ex = Double(x - 190), ey = Double(y - 130), q = ex * ex + ey * ey
        let blob = 1.7 * exp(-q / (2 * 18 * 18))
        if blob > 0.02 { v += SIMD3(0.45, 1.0, 0.35) * blob }
        return v
    }

    /// The scene × `light` as a 14-bit raw image with the chart camera's metadata (black 512,
    /// white 16383, no crop); the sensor clips at its white. Noise: a fixed hash of the position,
    /// ±0.3 % of white. `cfa` nil: a LinearRaw-style RGB image (3 samples per pixel). Also returns
    /// the white-balance gains the scene was encoded with.
    public static func raw(cfa: CFAPattern?, light: Double) throws(DevelopError) -> (RawImage, SIMD3<Float>) {
        let chart = SyntheticChart(cfa: cfa ?? .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: width, height: height)
        var md = chart.makeRawImage().metadata
        md.blackLevel = [512]; md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
        md.whiteLevel = [16383]
        md.defaultCrop = nil
        let spp = cfa == nil ? 3 : 1
        if cfa == nil { md.cfa = nil; md.samplesPerPixel = 3 }
        let plan = try DevelopPlan(metadata: md, width: width, height: height, samplesPerPixel: spp,
                                   recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists())
        let gains = plan.whiteBalanceGains
        let range = 16383.0 - 512
        var pixels = [UInt16](repeating: 0, count: width * height * spp)
        for y in 0..<height {
            for x in 0..<width {
                for s in 0..<spp {
                    let c = cfa.map { Int($0.color(x: x, y: y).rawValue) } ?? s
                    let value = balanced(x, y)[c] * light
                    var h = UInt32(truncatingIfNeeded: (x * 3 + s) &* 73_856_093 ^ y &* 19_349_663)
                    h = (h ^ (h >> 13)) &* 1_274_126_177
                    let noise = (Double(h & 0xFFFF) / 65535 - 0.5) * 0.006
                    let v = 512 + (value / Double(gains[c]) + noise) * range
                    pixels[(y * width + x) * spp + s] = UInt16(min(max(v.rounded(), 0), 16383))
                }
            }
        }
        return (RawImage(width: width, height: height, samplesPerPixel: spp, pixels: pixels, metadata: md), gains)
    }
}
