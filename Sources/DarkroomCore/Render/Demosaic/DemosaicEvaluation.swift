import Foundation

/// Tools to measure demosaicing quality the standard way (Kodak-24 CPSNR): sample a full-colour
/// image through a CFA, demosaic, compare with the original.
public enum DemosaicEvaluation {
    /// Samples interleaved RGB (`channels` per pixel, first three used) through `cfa`.
    public static func mosaic(interleaved: [Float], width: Int, height: Int, channels: Int = 3,
                              cfa: CFAPattern) -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                out[y * width + x] = interleaved[(y * width + x) * channels + Int(cfa.color(x: x, y: y).rawValue)]
            }
        }
        return out
    }

    /// Colour PSNR in dB between 8-bit interleaved reference `reference` and planar float output
    /// (quantised as `round(clamp(v, 0, 1) · 255)`), over pixels at least `border` from each edge.
    public static func cpsnr(reference: [UInt8], channels: Int = 3, width: Int, height: Int,
                             red: [Float], green: [Float], blue: [Float], border: Int = 10) -> Double {
        var sum = 0.0
        var count = 0
        for y in border..<(height - border) {
            for x in border..<(width - border) {
                let i = y * width + x
                let j = i * channels
                let dr = quantised(red[i]) - Double(reference[j])
                let dg = quantised(green[i]) - Double(reference[j + 1])
                let db = quantised(blue[i]) - Double(reference[j + 2])
                sum += dr * dr + dg * dg + db * db
                count += 3
            }
        }
        let mse = sum / Double(max(count, 1))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @inline(__always)
    private static func quantised(_ v: Float) -> Double { Double((min(max(v, 0), 1) * 255).rounded()) }
}
