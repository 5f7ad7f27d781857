extension RawImage {
    /// A half-size RGB image made by binning each 2×2 CFA quad into one pixel (red and blue
    /// sites as they are, the two greens averaged), black level (with BlackLevelDeltaH/V)
    /// subtracted per site first. The result is LinearRaw-like (3 samples per pixel, camera RGB,
    /// black 0), so it renders with no demosaic at a quarter of the pixels: the fast path of
    /// `PreviewExtractor`'s render. Opcode lists are dropped (their coordinates no longer apply).
    /// Returns nil for non-mosaic images, patterns that are not 2×2 Bayer quads, or images
    /// smaller than 8×8.
    public func halfSizeBinned() -> RawImage? {
        guard samplesPerPixel == 1, let cfa = metadata.cfa, width >= 8, height >= 8 else { return nil }
        let md = metadata
        let rows = max(md.blackLevelRepeatRows, 1), cols = max(md.blackLevelRepeatColumns, 1)
        var black = md.blackLevel
        if black.count == 1 { black = [Double](repeating: black[0], count: rows * cols) }
        guard black.count == rows * cols else { return nil }
        let dh = md.blackLevelDeltaH.flatMap { $0.count == width ? $0 : nil }
        let dv = md.blackLevelDeltaV.flatMap { $0.count == height ? $0 : nil }
        let hw = width / 2, hh = height / 2
        var out = [UInt16](repeating: 0, count: hw * hh * 3)
        let white = md.whiteLevel.first ?? 65535
        let meanBlack = black.reduce(0, +) / Double(black.count)
        for y in 0..<hh {
            for x in 0..<hw {
                var sum = SIMD3<Double>(0, 0, 0)
                for dy in 0..<2 { for dx in 0..<2 {
                    let sx = 2 * x + dx, sy = 2 * y + dy
                    var b = black[(sy % rows) * cols + sx % cols]
                    if let dh { b += dh[sx] }
                    if let dv { b += dv[sy] }
                    let v = max(0, Double(pixels[sy * width + sx]) - b)
                    switch cfa.color(x: sx, y: sy) {
                    case .red: sum.x += v
                    case .green: sum.y += v / 2
                    case .blue: sum.z += v
                    }
                } }
                let o = (y * hw + x) * 3
                out[o] = UInt16(min(65535, sum.x.rounded()))
                out[o + 1] = UInt16(min(65535, sum.y.rounded()))
                out[o + 2] = UInt16(min(65535, sum.z.rounded()))
            }
        }
        var m = md
        m.samplesPerPixel = 3
        m.cfa = nil
        m.blackLevelRepeatRows = 1
        m.blackLevelRepeatColumns = 1
        m.blackLevel = [0]
        m.blackLevelDeltaH = nil
        m.blackLevelDeltaV = nil
        m.whiteLevel = [max(2, white - meanBlack)]
        m.opcodeList1 = nil; m.opcodeList2 = nil; m.opcodeList3 = nil
        m.sensorWidth = hw; m.sensorHeight = hh
        m.activeArea = PixelRect(x: 0, y: 0, width: hw, height: hh)
        m.defaultCrop = md.defaultCrop.map { PixelRect(x: $0.x / 2, y: $0.y / 2, width: max(1, $0.width / 2), height: max(1, $0.height / 2)) }
        return RawImage(width: hw, height: hh, samplesPerPixel: 3, pixels: out, metadata: m)
    }
}
