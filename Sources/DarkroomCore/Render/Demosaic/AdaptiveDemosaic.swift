import Synchronization

/// A sparse correlation-adaptive demosaic: MSG (`MSGDemosaic`) wherever the three channels share
/// their detail, blended toward MLRI (`MLRIDemosaic`) only where they do not, and MLRI evaluated
/// only around the pixels that need it.
///
/// Input and output as every `DemosaicKernel` (linear sensor values, 1.0 = clip, planar R, G, B).
///
/// Per pixel the output is `msg + t · (mlri − msg)`, with the MLRI share
/// `t = 1 − clamp((s − lowerSlope) / (upperSlope − lowerSlope), 0, 1)` (1 where `s` is NaN) and
/// `s` the same local inter-channel slope as `HybridDemosaic`'s (band-pass of each sample against
/// the band-pass of the bilinear estimate of the other colour(s), least squares over a
/// `(2·window+1)²` window, `ε` on both sums), computed from the mosaic alone. Where `t` is 0 the
/// output is MSG's bytes exactly (the blend is not evaluated there).
///
/// Sparse evaluation: the slope field is computed first over the region's exact area; the area
/// is cut into `blockSize`² blocks, blocks with `t > 0` somewhere are covered by rectangles (a
/// greedy guillotine split that minimises the pixels MLRI computes, its 27-pixel halo included),
/// and MLRI runs only on those rectangles, each with its own full halo. MLRI's output at a pixel
/// does not depend on the rectangle it was computed in (it is exact at its halo), so the result
/// never depends on the blocks or the tiling: any tile size and thread count give the same bytes.
///
/// Measured (`bench-demosaic`, README "Demosaic") with the defaults: mean CPSNR 40.77 dB on
/// Kodak 24 (MSG 40.80) and 38.00 dB on the saturated set (MLRI 38.26, MSG 35.14). MLRI ran on
/// 55 % of Kodak 24's 16² blocks and 67 % of the saturated set's (≈ 90 % of a dense MLRI's pixel
/// work, halos included), so it runs at 0.2–0.3× MSG's speed; with MLRI never needed it runs at
/// ≈ 0.7× (the slope field and the larger halo).
public struct AdaptiveDemosaic: DemosaicKernel {
    /// The colour-difference demosaic used where the channels correlate.
    public var directional: MSGDemosaic
    /// The residual-interpolation demosaic blended in where they do not.
    public var residual: MLRIDemosaic
    /// Half-side of the slope window in pixels (default 14: 29×29).
    public var window: Int
    /// ε added to both sums of the slope (squared data units, data scale 1.0 = clip; default 10⁻⁵).
    public var epsilon: Float
    /// Slope at or below which the output is all MLRI (default 0.7).
    public var lowerSlope: Float
    /// Slope from which the output is all MSG, its bytes exactly (default 1.0: lower values make
    /// MLRI run on fewer blocks and cost saturated colour, e.g. 0.5 → 0.8: 37.76 dB, README).
    public var upperSlope: Float
    /// Side in pixels of the blocks whose need for MLRI is decided together (default 16; changes
    /// only the work done, never the output).
    public var blockSize: Int
    /// Optional counters (blocks, blocks that ran MLRI, pixels MLRI computed); `nil` in renders.
    public var statistics: AdaptiveDemosaicStatistics?

    public init(directional: MSGDemosaic = MSGDemosaic(), residual: MLRIDemosaic = MLRIDemosaic(),
                window: Int = 14, epsilon: Float = 1e-5, lowerSlope: Float = 0.7, upperSlope: Float = 1.0,
                blockSize: Int = 16, statistics: AdaptiveDemosaicStatistics? = nil) {
        self.directional = directional; self.residual = residual
        (self.window, self.epsilon, self.lowerSlope, self.upperSlope) =
            HybridDemosaic.slopeParameters(window: window, epsilon: epsilon, lowerSlope: lowerSlope, upperSlope: upperSlope)
        self.blockSize = max(4, blockSize); self.statistics = statistics
    }

    /// The largest of MSG's and MLRI's halos and the slope's (`window` + 7, so its eight-lane
    /// loops have room in the smallest region).
    public var halo: Int { max(directional.halo, residual.halo, window + 7) }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let halo = self.halo
        if DemosaicBorder.fillIfTooSmall(halo: halo, mosaic: m, width: width, height: height, cfa: cfa,
                                         red: red, green: green, blue: blue) { return }
        let w = width, h = height, n = w * h
        let ew = w - 2 * halo, eh = h - 2 * halo
        // MSG on the exact area plus its own halo, into the output planes.
        let dHalo = directional.halo
        runSub(directional, m, w, cfa, x0: halo - dHalo, y0: halo - dHalo, sw: ew + 2 * dHalo, sh: eh + 2 * dHalo,
               inset: dHalo) { sub, sx, i, count in
            (red + i).update(from: sub.0 + sx, count: count)
            (green + i).update(from: sub.1 + sx, count: count)
            (blue + i).update(from: sub.2 + sx, count: count)
        }
        // The MLRI share over the exact area.
        let share = UnsafeMutablePointer<Float>.allocate(capacity: ew * eh)
        defer { share.deallocate() }
        residualShare(m, w, h, cfa, share: share)
        // Blocks that need MLRI.
        let b = blockSize
        let gx = (ew + b - 1) / b, gy = (eh + b - 1) / b
        var flags = [Bool](repeating: false, count: gx * gy)
        for y in 0..<eh {
            let row = share + y * ew, by = y / b
            var x = 0
            while x < ew {
                let end = min(x + b, ew)
                var any = false
                for i in x..<end where row[i] > 0 { any = true; break }
                if any { flags[by * gx + x / b] = true }
                x = end
            }
        }
        let rects = Self.cover(flags: flags, gx: gx, gy: gy, block: b, width: ew, height: eh, halo: residual.halo)
        let rHalo = residual.halo
        var mlriPixels = 0
        for r in rects {
            let px0 = r.x0 * b, py0 = r.y0 * b, px1 = min(r.x1 * b, ew), py1 = min(r.y1 * b, eh)
            // MLRI needs a region of at least 2·halo + 2: a one-pixel rectangle (a last partial
            // block) is computed one pixel wider, inside the exact area, and blended only on its own.
            let cx0 = px1 - px0 < 2 ? px1 - 2 : px0, cy0 = py1 - py0 < 2 ? py1 - 2 : py0
            let sw = px1 - cx0 + 2 * rHalo, sh = py1 - cy0 + 2 * rHalo
            mlriPixels += sw * sh
            runSub(residual, m, w, cfa, x0: halo + cx0 - rHalo, y0: halo + cy0 - rHalo, sw: sw, sh: sh,
                   inset: rHalo) { sub, sx, i, _ in
                let ey = i / w - halo
                guard ey >= py0 else { return }
                let skip = px0 - cx0, count = px1 - px0
                let t = share + ey * ew + px0, o = i + skip, so = sx + skip
                for k in 0..<count where t[k] > 0 {
                    red[o + k] += t[k] * (sub.0[so + k] - red[o + k])
                    green[o + k] += t[k] * (sub.1[so + k] - green[o + k])
                    blue[o + k] += t[k] * (sub.2[so + k] - blue[o + k])
                }
            }
        }
        statistics?.add(blocks: gx * gy, residualBlocks: flags.lazy.filter { $0 }.count,
                        residualPixels: mlriPixels, densePixels: n)
        DemosaicBorder.fill(mosaic: m, width: width, height: height, cfa: cfa, inset: halo,
                            red: red, green: green, blue: blue)
    }
}

/// Thread-safe counters of `AdaptiveDemosaic`'s sparse evaluation (for `bench-demosaic`).
public final class AdaptiveDemosaicStatistics: Sendable {
    private let counts = Mutex<[Int]>([0, 0, 0, 0])

    public init() {}

    func add(blocks: Int, residualBlocks: Int, residualPixels: Int, densePixels: Int) {
        counts.withLock { c in
            c[0] += blocks; c[1] += residualBlocks; c[2] += residualPixels; c[3] += densePixels
        }
    }

    /// Blocks decided so far, and how many of them ran MLRI.
    public var blocks: (total: Int, residual: Int) { counts.withLock { ($0[0], $0[1]) } }
    /// Pixels MLRI computed (its halos included) over the pixels a dense MLRI run on the same
    /// regions would have computed.
    public var residualWork: Double { counts.withLock { $0[3] > 0 ? Double($0[2]) / Double($0[3]) : 0 } }
}

extension AdaptiveDemosaic {
    typealias V = DemosaicVector.V

    /// Runs `kernel` on the `sw × sh` sub-region at (`x0`, `y0`) of the `w`-wide mosaic and calls
    /// `body(planes, subIndex, regionIndex, count)` for each row's run of pixels at distance
    /// ≥ `inset` from its edges.
    func runSub(_ kernel: some DemosaicKernel, _ m: UnsafePointer<Float>, _ w: Int, _ cfa: CFAPattern,
                x0: Int, y0: Int, sw: Int, sh: Int, inset: Int,
                _ body: ((UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>), Int, Int, Int) -> Void) {
        let count = sw * sh
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 4 * count)
        defer { buffer.deallocate() }
        for y in 0..<sh { (buffer + y * sw).update(from: m + (y0 + y) * w + x0, count: sw) }
        let planes = (buffer + count, buffer + 2 * count, buffer + 3 * count)
        kernel.demosaic(mosaic: buffer, width: sw, height: sh, cfa: cfa.shifted(dx: x0, dy: y0),
                        red: planes.0, green: planes.1, blue: planes.2)
        for y in inset..<(sh - inset) {
            body(planes, y * sw + inset, (y0 + y) * w + x0 + inset, sw - 2 * inset)
        }
    }

    /// The MLRI share `t` at every pixel of the exact area (`(w − 2·halo) × (h − 2·halo)`, row-major).
    func residualShare(_ m: UnsafePointer<Float>, _ w: Int, _ h: Int, _ cfa: CFAPattern,
                       share: UnsafeMutablePointer<Float>) {
        let n = w * h, halo = self.halo, r = window
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 5 * n)
        defer { scratch.deallocate() }
        let greenEstimate = scratch, across = scratch + n, along = scratch + 2 * n
        let products = scratch + 3 * n, squares = scratch + 4 * n
        let slope = HybridDemosaic(window: window, epsilon: epsilon)
        slope.bilinearEstimates(m, w, h, cfa, greenEstimate: greenEstimate, across: across, along: along)
        slope.bandPassProducts(m, w, h, cfa, greenEstimate: greenEstimate, across: across, along: along,
                               products: products, squares: squares)
        // Window sums, exactly: every product is rounded to a multiple of 2⁻²⁴ (a Float still) and
        // clamped so a window's sum stays below 2²⁸, so running sums in Double are exact and their
        // order does not matter. Columns first (running down each column, eight columns at a
        // time), then rows (running along each row).
        let side = Float(2 * r + 2)
        let bound = Float(1 << 28) / (side * side)
        let unit: Float = 16_777_216, inverseUnit: Float = 1 / 16_777_216
        let ew = w - 2 * halo, eh = h - 2 * halo
        let cw = ew + 2 * r, c0 = halo - r
        for y in (halo - r)..<(h - halo + r) {
            for plane in [products, squares] {
                for x0 in stride(from: 0, to: cw, by: 8) {
                    let p = plane + y * w + c0 + min(x0, cw - 8)
                    var v = DemosaicVector.load(p)
                    v = v.replacing(with: 0, where: v .!= v)
                    v = v.replacing(with: bound, where: v .> bound).replacing(with: -bound, where: v .< -bound)
                    // Idempotent, so the overlapping last chunk may quantise twice.
                    DemosaicVector.store((v * unit).rounded(.toNearestOrEven) * inverseUnit, p)
                }
            }
        }
        typealias D = SIMD8<Double>
        @inline(__always) func wide(_ p: UnsafePointer<Float>) -> D { D(DemosaicVector.load(p)) }
        let columnSums = UnsafeMutablePointer<Double>.allocate(capacity: 2 * cw * eh)
        defer { columnSums.deallocate() }
        let colP = columnSums, colQ = columnSums + cw * eh
        for x0 in stride(from: 0, to: cw, by: 8) {
            let x = min(x0, cw - 8)
            var sp = D(), sq = D()
            for y in (halo - r)...(halo + r) {
                sp += wide(products + y * w + c0 + x); sq += wide(squares + y * w + c0 + x)
            }
            UnsafeMutableRawPointer(colP + x).storeBytes(of: sp, as: D.self)
            UnsafeMutableRawPointer(colQ + x).storeBytes(of: sq, as: D.self)
            for y in (halo + 1)..<(h - halo) {
                let add = (y + r) * w + c0 + x, sub = (y - r - 1) * w + c0 + x
                sp += wide(products + add) - wide(products + sub)
                sq += wide(squares + add) - wide(squares + sub)
                let o = (y - halo) * cw + x
                UnsafeMutableRawPointer(colP + o).storeBytes(of: sp, as: D.self)
                UnsafeMutableRawPointer(colQ + o).storeBytes(of: sq, as: D.self)
            }
        }
        let eps = V(repeating: epsilon), lower = lowerSlope, inverseSpan = 1 / (upperSlope - lowerSlope)
        let zero = V(), one = V(repeating: 1)
        let rowP = UnsafeMutablePointer<Float>.allocate(capacity: 2 * ew)
        defer { rowP.deallocate() }
        let rowQ = rowP + ew
        for y in 0..<eh {
            let cp = colP + y * cw, cq = colQ + y * cw, out = share + y * ew
            var sp = 0.0, sq = 0.0
            for k in 0..<(2 * r) { sp += cp[k]; sq += cq[k] }
            for x in 0..<ew {
                sp += cp[x + 2 * r]; sq += cq[x + 2 * r]
                rowP[x] = Float(sp); rowQ[x] = Float(sq)
                sp -= cp[x]; sq -= cq[x]
            }
            guard ew >= 8 else {   // the smallest regions: the same arithmetic, one lane at a time
                for x in 0..<ew {
                    let u = ((rowP[x] + epsilon) / (rowQ[x] + epsilon) - lower) * inverseSpan
                    out[x] = 1 - (u >= 0 ? min(u, 1) : 0)
                }
                continue
            }
            for x0 in stride(from: 0, to: ew, by: 8) {
                let x = min(x0, ew - 8)
                let slope = (DemosaicVector.load(rowP + x) + eps) / (DemosaicVector.load(rowQ + x) + eps)
                var u = (slope - lower) * inverseSpan
                u = u.replacing(with: zero, where: .!(u .>= zero))   // also NaN → all MLRI
                u = u.replacing(with: one, where: u .> one)
                DemosaicVector.store(one - u, out + x)
            }
        }
    }

    /// A block rectangle `[x0, x1) × [y0, y1)` in block units.
    struct BlockRect: Equatable { var x0, y0, x1, y1: Int }

    /// Rectangles covering every flagged block of the `gx × gy` grid, chosen to reduce the pixels
    /// MLRI computes (each rectangle's pixels plus its `halo` on every side): the bounding box of
    /// the flagged blocks, split in two by the best horizontal or vertical cut while that lowers
    /// the cost, recursively.
    static func cover(flags: [Bool], gx: Int, gy: Int, block: Int, width: Int, height: Int, halo: Int) -> [BlockRect] {
        func bbox(_ r: BlockRect) -> BlockRect? {
            var out: BlockRect?
            for y in r.y0..<r.y1 { for x in r.x0..<r.x1 where flags[y * gx + x] {
                if var o = out { o.x0 = min(o.x0, x); o.x1 = max(o.x1, x + 1); o.y0 = min(o.y0, y); o.y1 = max(o.y1, y + 1); out = o }
                else { out = BlockRect(x0: x, y0: y, x1: x + 1, y1: y + 1) }
            } }
            return out
        }
        func cost(_ r: BlockRect?) -> Int {
            guard let r else { return 0 }
            return (min(r.x1 * block, width) - r.x0 * block + 2 * halo) * (min(r.y1 * block, height) - r.y0 * block + 2 * halo)
        }
        var out: [BlockRect] = []
        func split(_ area: BlockRect, depth: Int) {
            guard let box = bbox(area) else { return }
            let whole = cost(box)
            var best: (Int, BlockRect, BlockRect)?
            if depth < 12 {
                for c in (box.x0 + 1)..<max(box.x1, box.x0 + 1) {
                    let a = BlockRect(x0: box.x0, y0: box.y0, x1: c, y1: box.y1), b = BlockRect(x0: c, y0: box.y0, x1: box.x1, y1: box.y1)
                    let total = cost(bbox(a)) + cost(bbox(b))
                    if total < (best?.0 ?? whole) { best = (total, a, b) }
                }
                for c in (box.y0 + 1)..<max(box.y1, box.y0 + 1) {
                    let a = BlockRect(x0: box.x0, y0: box.y0, x1: box.x1, y1: c), b = BlockRect(x0: box.x0, y0: c, x1: box.x1, y1: box.y1)
                    let total = cost(bbox(a)) + cost(bbox(b))
                    if total < (best?.0 ?? whole) { best = (total, a, b) }
                }
            }
            if let (_, a, b) = best { split(a, depth: depth + 1); split(b, depth: depth + 1) } else { out.append(box) }
        }
        split(BlockRect(x0: 0, y0: 0, x1: gx, y1: gy), depth: 0)
        return out
    }
}
