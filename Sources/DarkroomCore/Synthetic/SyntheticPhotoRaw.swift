import Foundation

/// A synthetic raw made from an ordinary photograph (8-bit sRGB): the values decoded to linear
/// light are taken as white-balanced camera RGB of the `SyntheticChart` camera (D65), divided by
/// its white-balance gains, scaled by `exposure` (0.9 puts white at 90 % of the range; above 1,
/// bright areas clip per channel as a sensor's do), mosaicked RGGB at 14 bits with black 512, with
/// shot + read noise of variance S·x + O (x and σ as fractions of the range: the DNG NoiseProfile
/// model; `noiseProfile` is the tag the raw carries, usually [S, O]). Deterministic:
/// the noise is a hash of the position (`SyntheticNoise.gaussian`, `seed`).
public enum SyntheticPhotoRaw {
    /// `rgb`: `width × height` pixels of `channels` (3, or 4 with alpha, composited over white)
    /// 8-bit sRGB values. Odd sides lose their last row/column (whole CFA cells).
    public static func make(rgb: [UInt8], width: Int, height: Int, channels: Int, exposure: Double = 0.9,
                            S: Double = 0, O: Double = 0, noiseProfile: [Double]? = nil, seed: UInt64 = 2026) throws -> RawImage {
        let w = width & ~1, h = height & ~1
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: max(w, 2), height: max(h, 2))
        var md = chart.makeRawImage().metadata
        md.blackLevel = [512]; md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
        md.whiteLevel = [16383]
        md.defaultCrop = nil
        md.noiseProfile = noiseProfile
        let plan = try DevelopPlan(metadata: md, width: w, height: h, samplesPerPixel: 1, recipe: DevelopRecipe(),
                                   opcodes: ParsedOpcodeLists())
        let gains = plan.whiteBalanceGains
        let range = 16383.0 - 512
        var lut = [Double](repeating: 0, count: 256)
        for v in 0..<256 {
            let e = Double(v) / 255
            lut[v] = e <= 0.04045 ? e / 12.92 : pow((e + 0.055) / 1.055, 2.4)
        }
        var pixels = [UInt16](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let c = Int(CFAPattern.rggb.color(x: x, y: y).rawValue)
                let p = (y * width + x) * channels
                var value = Double(rgb[p + c]) / 255
                if channels == 4 { let a = Double(rgb[p + 3]) / 255; value = value * a + (1 - a) }
                let linear = channels == 4 ? lut[Int((value * 255).rounded())] : lut[Int(rgb[p + c])]
                let signal = exposure * linear / Double(gains[c])
                let sigma = (S * min(signal, 1) + O).squareRoot()
                let v = 512 + (signal + sigma * SyntheticNoise.gaussian(y * w + x, seed)) * range
                pixels[y * w + x] = UInt16(min(max(v.rounded(), 0), 16383))
            }
        }
        return RawImage(width: w, height: h, samplesPerPixel: 1, pixels: pixels, metadata: md)
    }
}
