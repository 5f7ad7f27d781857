extension MatteBuilder {
    /// `plane` (made at one pixel per 2 × 2 block of a `width × height` output) brought to
    /// `planeSize(width:height:)`: unchanged when that is its size, else area-averaged —
    /// each target pixel the mean of the source area it covers, fractional source pixels weighted
    /// by coverage, separable (rows, then columns), rounded to nearest.
    static func fitted(_ plane: AuxiliaryPlane, toOutput width: Int, _ height: Int) -> AuxiliaryPlane {
        let (tw, th) = planeSize(width: width, height: height)
        guard tw != plane.width || th != plane.height else { return plane }
        return AuxiliaryPlane(kind: plane.kind, width: tw, height: th,
                              pixels: areaAverage(plane.pixels, width: plane.width, height: plane.height, toWidth: tw, toHeight: th))
    }

    /// Area-average reduction of an 8-bit one-channel image (`tw ≤ width`, `th ≤ height`).
    public static func areaAverage(_ pixels: [UInt8], width: Int, height: Int, toWidth tw: Int, toHeight th: Int) -> [UInt8] {
        guard width > 0, height > 0, tw > 0, th > 0, pixels.count == width * height else {
            return [UInt8](repeating: 0, count: max(0, tw) * max(0, th))
        }
        let xTaps = taps(source: width, target: tw), yTaps = taps(source: height, target: th)
        var rows = [Float](repeating: 0, count: tw * height)   // horizontal pass
        for y in 0..<height {
            for (x, taps) in xTaps.enumerated() {
                var v: Float = 0
                for t in taps { v += Float(pixels[y * width + t.index]) * t.weight }
                rows[y * tw + x] = v
            }
        }
        var out = [UInt8](repeating: 0, count: tw * th)
        for (y, taps) in yTaps.enumerated() {
            for x in 0..<tw {
                var v: Float = 0
                for t in taps { v += rows[t.index * tw + x] * t.weight }
                out[y * tw + x] = UInt8(min(255, max(0, v.rounded())))
            }
        }
        return out
    }

    /// Source pixels and weights (summing to 1) of each of `target` pixels covering `source` pixels.
    static func taps(source: Int, target: Int) -> [[(index: Int, weight: Float)]] {
        (0..<target).map { t in
            let lo = Double(t) * Double(source) / Double(target), hi = Double(t + 1) * Double(source) / Double(target)
            var out: [(Int, Float)] = []
            var i = Int(lo.rounded(.down))
            while Double(i) < hi && i < source {
                let w = min(hi, Double(i + 1)) - max(lo, Double(i))
                if w > 1e-9 { out.append((i, Float(w / (hi - lo)))) }
                i += 1
            }
            return out
        }
    }
}
