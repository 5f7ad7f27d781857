import Foundation

/// Measures camera-native neutrals on a raw mosaic (auto white balance, neutral patch).
///
/// Samples are black-subtracted and scaled by the white level: 0 = black, 1 = clipping, per CFA
/// site (BlackLevel with its repeat pattern, plus BlackLevelDeltaH/V). A CFA mosaic is read as
/// 2×2 cells (R, mean of the two greens, B); a LinearRaw image as pixels.
///
/// Auto white balance — iterative grey world on near-neutral cells:
/// 1. Cells (subsampled on a regular grid to at most `maxCells`) are dropped when any sample is
///    at or above `clipLevel` (clipped or nearly: their colour is wrong) or any channel is at or
///    below `darkLevel` (too dark for its colour to be more than noise).
/// 2. The first estimate is the candidate neutral (in practice: the camera neutrals of
///    Planckian whites 2000…12000 K solved through the profile, see `WhiteBalanceRequest`)
///    under which the most cells are near-neutral (balanced HSV saturation (max − min) / max
///    below `candidateSaturation`): saturated subjects are not grey under any real light, so a
///    large red wall cannot win. Without candidates: the plain grey world of all cells.
/// 3. Then, for each threshold in `saturationSchedule`, cells whose saturation after balancing
///    by the current estimate is below the threshold are kept and their channel sums give the
///    next estimate (grey world on the near-neutral cells; this also finds tint off the
///    locus). A step that would keep fewer than `minimumCells` cells (or 0.5 % of the usable
///    ones) is skipped.
/// The result is normalised to max 1, like AsShotNeutral.
public struct WhiteBalanceEstimator: Sendable {
    public let raw: RawImage
    /// Samples at or above this fraction of the clipping point are treated as clipped.
    public var clipLevel: Float = 0.95
    /// Channels at or below this are too dark to judge colour.
    public var darkLevel: Float = 0.004
    /// The near-neutral saturation thresholds, loosest first.
    public var saturationSchedule: [Float] = [0.25, 0.18, 0.12, 0.12, 0.12, 0.12]
    /// The saturation below which a cell counts as grey when ranking candidate neutrals.
    public var candidateSaturation: Float = 0.15
    /// At most this many cells are read (a regular subsampling grid).
    public var maxCells = 1 << 18
    public var minimumCells = 32

    public init(raw: RawImage) { self.raw = raw }

    // MARK: Sample access

    /// Black level and scale for sample `s` at (x, y) of the active area.
    private func level(x: Int, y: Int, sample s: Int) -> (black: Float, scale: Float) {
        let m = raw.metadata
        let rows = max(m.blackLevelRepeatRows, 1), cols = max(m.blackLevelRepeatColumns, 1)
        let spp = raw.samplesPerPixel
        let i = ((y % rows) * cols + (x % cols)) * spp + s
        var black = m.blackLevel.isEmpty ? 0 : m.blackLevel[min(i, m.blackLevel.count - 1)]
        if let h = m.blackLevelDeltaH, x < h.count { black += h[x] }
        if let v = m.blackLevelDeltaV, y < v.count { black += v[y] }
        let white = m.whiteLevel.isEmpty ? 65535 : m.whiteLevel[min(s, m.whiteLevel.count - 1)]
        let range = white - black
        return (Float(black), range > 0 ? Float(1 / range) : 0)
    }

    @inline(__always) private func value(x: Int, y: Int, sample s: Int) -> Float {
        let l = level(x: x, y: y, sample: s)
        let v = Float(raw.pixels[(y * raw.width + x) * raw.samplesPerPixel + s])
        return (v - l.black) * l.scale
    }

    /// One cell's (R, G, B) at top-left (x, y) and whether it is usable (not clipped, not dark).
    private func cell(x: Int, y: Int) -> (rgb: SIMD3<Float>, usable: Bool)? {
        if raw.samplesPerPixel >= 3 {
            let c = SIMD3(value(x: x, y: y, sample: 0), value(x: x, y: y, sample: 1), value(x: x, y: y, sample: 2))
            return (c, c.max() < clipLevel && c.min() > darkLevel)
        }
        guard let cfa = raw.metadata.cfa, x + 1 < raw.width, y + 1 < raw.height else { return nil }
        var sum = SIMD3<Float>(0, 0, 0), count = SIMD3<Float>(0, 0, 0)
        var clipped = false
        for dy in 0..<2 {
            for dx in 0..<2 {
                let v = value(x: x + dx, y: y + dy, sample: 0)
                if v >= clipLevel { clipped = true }
                let ch = Int(cfa.color(x: x + dx, y: y + dy).rawValue)
                guard ch < 3 else { continue }
                sum[ch] += v; count[ch] += 1
            }
        }
        guard count.min() > 0 else { return nil }
        let c = sum / count
        return (c, !clipped && c.min() > darkLevel)
    }

    // MARK: Auto

    /// The auto white balance neutral (see the type's documentation); nil when fewer than
    /// `minimumCells` cells are usable.
    public func autoNeutral(candidates: [SIMD3<Double>] = []) -> SIMD3<Double>? {
        let step = raw.samplesPerPixel >= 3 ? 1 : 2
        let cellsX = raw.width / step, cellsY = raw.height / step
        guard cellsX > 0, cellsY > 0 else { return nil }
        let stride = max(1, Int((Double(cellsX * cellsY) / Double(maxCells)).squareRoot().rounded(.up)))
        var cells: [SIMD3<Float>] = []
        cells.reserveCapacity((cellsX / stride + 1) * (cellsY / stride + 1))
        for cy in Swift.stride(from: 0, to: cellsY, by: stride) {
            for cx in Swift.stride(from: 0, to: cellsX, by: stride) {
                if let c = cell(x: cx * step, y: cy * step), c.usable { cells.append(c.rgb) }
            }
        }
        guard cells.count >= minimumCells else { return nil }
        var estimate = SIMD3<Double>(0, 0, 0)
        for c in cells { estimate += SIMD3<Double>(c) }
        var bestCount = 0
        for n in candidates where n.min() > 0 && n.max().isFinite {
            let gains = SIMD3<Float>(1 / (n / n.max()))
            var count = 0
            for c in cells {
                let b = c * gains
                let hi = b.max()
                if (hi - b.min()) / hi < candidateSaturation { count += 1 }
            }
            if count > bestCount { bestCount = count; estimate = n }
        }
        let floor = max(minimumCells, cells.count / 200)
        for threshold in saturationSchedule {
            let gains = SIMD3<Float>(1 / (estimate / estimate.max()))
            var sum = SIMD3<Double>(0, 0, 0)
            var kept = 0
            for c in cells {
                let b = c * gains
                let hi = b.max()
                if (hi - b.min()) / hi < threshold { sum += SIMD3<Double>(c); kept += 1 }
            }
            if kept >= floor { estimate = sum }
        }
        let peak = estimate.max()
        guard peak > 0, peak.isFinite else { return nil }
        return estimate / peak
    }

    // MARK: Neutral patch

    /// The stored-image rectangle (active-area coordinates) of `displayRect`, given in the
    /// frame of the default render: DefaultCrop applied, then the EXIF orientation.
    public func storedRect(displayRect r: PixelRect) -> PixelRect {
        let m = raw.metadata
        let crop = m.defaultCrop ?? PixelRect(x: 0, y: 0, width: raw.width, height: raw.height)
        let w = crop.width, h = crop.height
        func inverse(_ X: Int, _ Y: Int) -> (Int, Int) {
            switch m.orientation {
            case 2: return (w - 1 - X, Y)
            case 3: return (w - 1 - X, h - 1 - Y)
            case 4: return (X, h - 1 - Y)
            case 5: return (Y, X)
            case 6: return (Y, h - 1 - X)
            case 7: return (w - 1 - Y, h - 1 - X)
            case 8: return (w - 1 - Y, X)
            default: return (X, Y)
            }
        }
        let a = inverse(r.x, r.y), b = inverse(r.maxX - 1, r.maxY - 1)
        let x0 = min(a.0, b.0) + crop.x, x1 = max(a.0, b.0) + crop.x
        let y0 = min(a.1, b.1) + crop.y, y1 = max(a.1, b.1) + crop.y
        return PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    /// The mean camera-native values (max 1) of the unclipped samples in `displayRect` (see
    /// `storedRect`), grown to whole 2×2 CFA cells; nil when the rectangle lies outside the
    /// image or a channel has no unclipped sample.
    public func rectNeutral(displayRect: PixelRect) -> SIMD3<Double>? {
        var r = storedRect(displayRect: displayRect)
        if raw.samplesPerPixel == 1 {
            let x0 = r.x & ~1, y0 = r.y & ~1
            r = PixelRect(x: x0, y: y0, width: ((r.maxX + 1) & ~1) - x0, height: ((r.maxY + 1) & ~1) - y0)
        }
        let x0 = max(r.x, 0), y0 = max(r.y, 0), x1 = min(r.maxX, raw.width), y1 = min(r.maxY, raw.height)
        guard x1 > x0, y1 > y0 else { return nil }
        var sum = SIMD3<Double>(0, 0, 0), count = SIMD3<Double>(0, 0, 0)
        for y in y0..<y1 {
            for x in x0..<x1 {
                if raw.samplesPerPixel >= 3 {
                    for s in 0..<3 {
                        let v = value(x: x, y: y, sample: s)
                        if v < clipLevel { sum[s] += Double(v); count[s] += 1 }
                    }
                } else if let cfa = raw.metadata.cfa {
                    let ch = Int(cfa.color(x: x, y: y).rawValue)
                    let v = value(x: x, y: y, sample: 0)
                    if ch < 3, v < clipLevel { sum[ch] += Double(v); count[ch] += 1 }
                }
            }
        }
        guard count.min() > 0 else { return nil }
        let mean = sum / count
        let peak = mean.max()
        guard peak > 0, mean.min() > 0 else { return nil }
        return mean / peak
    }
}
