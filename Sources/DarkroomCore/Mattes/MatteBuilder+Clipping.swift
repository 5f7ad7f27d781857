import Dispatch
import Foundation

extension MatteBuilder {
    /// Fraction of the range (white − black) above black at which a raw sample counts as saturated.
    public static let sensorClipFraction: Float = 0.98

    /// The clipping plane: 255 where any of the block's output pixels (a) came from a saturated
    /// sensor site or (b) has a channel at the maximum code (255, or 65535 at 16 bits); else 0.
    ///
    /// Above `maximumLongSide` the plane is area-averaged (`fitted`): a pixel then holds the
    /// fraction of its area that clipped.
    ///
    /// (a) Each output pixel is mapped back to the raw mosaic: the inverse of `plan.orientation`
    /// gives its position in the cropped image, `plan.crop` its active-area position. The 2×2
    /// output block lands on a 2×2 raw block — every CFA colour of a Bayer mosaic, or all three
    /// samples of a LinearRaw pixel — and a sample `v` is saturated when
    /// `v ≥ black + sensorClipFraction · (white − black)`, with black per CFA position
    /// (BlackLevel, BlackLevelRepeatDim, BlackLevelDeltaH/V) and white per sample, as the plan resolved them.
    public static func clipping(image: RenderedImage, raw: RawImage, plan: DevelopPlan) -> AuxiliaryPlane {
        let (pw, ph) = blockPlaneSize(width: image.width, height: image.height)
        var out = [UInt8](repeating: 0, count: pw * ph)
        let width = image.width, height = image.height
        let sixteen = image.bitsPerSample == 16
        let n = width * height * 3
        let haveOutput = sixteen ? image.pixels16.count == n : image.pixels8.count == n
        let spp = raw.samplesPerPixel
        let haveRaw = raw.pixels.count == raw.width * raw.height * spp && plan.samplesPerPixel == spp
            && plan.crop.maxX <= raw.width && plan.crop.maxY <= raw.height
            && plan.outputSize.width == width && plan.outputSize.height == height
        let crop = plan.crop
        // Every orientation is an integer affine map; its coefficients (crop origin included)
        // come from storedPosition at (0, 0), (1, 0), (0, 1).
        let o0 = storedPosition(of: (0, 0), orientation: plan.orientation, width: crop.width, height: crop.height)
        let o1 = storedPosition(of: (1, 0), orientation: plan.orientation, width: crop.width, height: crop.height)
        let o2 = storedPosition(of: (0, 1), orientation: plan.orientation, width: crop.width, height: crop.height)
        let a = (x0: crop.x + o0.x, xx: o1.x - o0.x, xy: o2.x - o0.x, y0: crop.y + o0.y, yx: o1.y - o0.y, yy: o2.y - o0.y)
        let rows = plan.blackRepeatRows, cols = plan.blackRepeatColumns
        let deltaH = plan.blackDeltaH, deltaV = plan.blackDeltaV
        let hasDeltas = deltaH != nil || deltaV != nil
        let fraction = sensorClipFraction
        let whites = plan.whiteLevels, blacks = plan.blackLevels
        // Integer thresholds (a sample v clips when v ≥ ⌈threshold⌉) and repeat-position offsets
        // per raw row / column, so the inner loop has no division.
        let thresholds = clipThresholds(plan).map { Int32(min(65536, max(0, $0.rounded(.up)))) }
        let rowOffset = (0..<(haveRaw ? raw.height : 0)).map { ($0 % rows) * cols }
        let colOffset = (0..<(haveRaw ? raw.width : 0)).map { $0 % cols }
        let rawWidth = raw.width
        guard pw > 0, ph > 0 else { return AuxiliaryPlane(kind: .clipping, width: pw, height: ph, pixels: out) }
        let bands = min(ph, 4 * ProcessInfo.processInfo.activeProcessorCount)

        raw.pixels.withUnsafeBufferPointer { rp in
        image.pixels8.withUnsafeBufferPointer { p8 in
        image.pixels16.withUnsafeBufferPointer { p16 in
        out.withUnsafeMutableBufferPointer { o in
            guard let ob = o.baseAddress else { return }
            let v = BlockViews(p8: p8, p16: p16, table: UnsafeBufferPointer(start: nil, count: 0), raw: rp, out: ob)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let p8 = v.p8, p16 = v.p16, rp = v.raw
                thresholds.withUnsafeBufferPointer { th in
                rowOffset.withUnsafeBufferPointer { ro in
                colOffset.withUnsafeBufferPointer { co in
                let y0 = band * ph / bands, y1 = (band + 1) * ph / bands
                for py in y0..<y1 {
                    for px in 0..<pw {
                        var clipped = false
                        blockLoop: for oy in (2 * py)..<min(2 * py + 2, height) {
                            for ox in (2 * px)..<min(2 * px + 2, width) {
                                if haveOutput {
                                    let i = (oy * width + ox) * 3
                                    if sixteen {
                                        if p16[i] == 65535 || p16[i + 1] == 65535 || p16[i + 2] == 65535 { clipped = true; break blockLoop }
                                    } else if p8[i] == 255 || p8[i + 1] == 255 || p8[i + 2] == 255 { clipped = true; break blockLoop }
                                }
                                guard haveRaw else { continue }
                                // Stored (cropped) position = affine map of the output position.
                                let rx = a.x0 + a.xx * ox + a.xy * oy, ry = a.y0 + a.yx * ox + a.yy * oy
                                let base = (ry * rawWidth + rx) * spp
                                let position = (ro[ry] + co[rx]) * spp
                                for k in 0..<spp {
                                    let sample = rp[base + k]
                                    if !hasDeltas {
                                        if Int32(sample) >= th[position + k] { clipped = true; break blockLoop }
                                        continue
                                    }
                                    // BlackLevelDeltaH/V shift black per column/row.
                                    let black = blacks[position + k] + (deltaH?[rx] ?? 0) + (deltaV?[ry] ?? 0)
                                    let white = whites[min(k, whites.count - 1)]
                                    if Float(sample) >= black + fraction * (white - black) { clipped = true; break blockLoop }
                                }
                            }
                        }
                        if clipped { v.out[py * pw + px] = 255 }
                    }
                }
                }
                }
                }
            }
        }
        }
        }
        }
        return fitted(AuxiliaryPlane(kind: .clipping, width: pw, height: ph, pixels: out), toOutput: width, height)
    }

    /// Saturation threshold for every black-level position (without DeltaH/V).
    static func clipThresholds(_ plan: DevelopPlan) -> [Float] {
        let spp = plan.samplesPerPixel
        return plan.blackLevels.enumerated().map { (i, black) in
            let white = plan.whiteLevels[min(i % spp, plan.whiteLevels.count - 1)]
            return black + sensorClipFraction * (white - black)
        }
    }

    /// Where displayed pixel `p` of an image stored as `width × height` (before orientation)
    /// comes from: the inverse of `Orientation.map`.
    @inline(__always)
    public static func storedPosition(of p: (x: Int, y: Int), orientation: Orientation,
                                      width: Int, height: Int) -> (x: Int, y: Int) {
        switch orientation.value {
        case 2: return (width - 1 - p.x, p.y)
        case 3: return (width - 1 - p.x, height - 1 - p.y)
        case 4: return (p.x, height - 1 - p.y)
        case 5: return (p.y, p.x)
        case 6: return (p.y, height - 1 - p.x)
        case 7: return (width - 1 - p.y, height - 1 - p.x)
        case 8: return (width - 1 - p.y, p.x)
        default: return p
        }
    }
}
