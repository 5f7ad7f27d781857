import Dispatch
import Foundation
import Synchronization

/// How clipped highlights are rendered (`--highlights`).
public enum HighlightMode: String, Sendable, Codable, CaseIterable {
    /// Every channel is clipped at the sensor's white after white balance (the DNG SDK's
    /// behaviour): where any channel clips, the pixel runs toward neutral white.
    case clip
    /// Clipped channels are rebuilt from the unclipped ones (`HighlightRecovery`), so skies and
    /// lamps keep their hue; then the pixel is brought back to the displayable range by a
    /// hue-preserving scale.
    case reconstruct
}

/// Highlight reconstruction (`HighlightMode.reconstruct`), in the balanced (white-balanced,
/// clipped at 1) camera domain, before and after the demosaic.
///
/// Method — an "opposed-channel" inpainting (the idea of darktable's *inpaint opposed*, with
/// local ratios instead of one global additive chroma offset):
/// 1. Analysis (whole image, once): a photosite is *clipped* when its balanced value is 1 (the
///    renderer clips every balanced sample at 1). Around clipped areas, every unclipped photosite
///    of colour c with a clipped photosite within 2 px (the *border*) votes for the ratio of c to each
///    other colour d whose 3×3 neighbours are all unclipped (and where either is ≥ 0.5, so dark
///    ground across a hard edge does not vote): Σ value_c / Σ mean_d, summed per
///    32 × 32 px cell. Cells without votes take the ratio of the nearest voting cells through
///    cells where c clips (`filledRatios`), so each clipped area gets the hue of its own border.
/// 2. Per tile, before the demosaic: each clipped photosite of colour c gets
///    max(1, mean over usable d of (mean_d · ratio_c/d)), mean_d over the unclipped d samples of
///    its 5×5 window (d usable with at least two), the ratios bilinear between cell centres.
///    Photosites where every colour is clipped stay at 1 (white). Unclipped photosites ≥ 0.85
///    with a clipped photosite of their colour in the window get max(value, estimate), so noise
///    that dips a sample under the clip inside a clipped area does not leave a speck.
/// 3. Per tile, after the demosaic: a pixel whose largest channel m exceeds 1 is scaled by 1 / m,
///    keeping its channel ratios (so CIE hue) and bringing it into the range every later stage
///    (the SDK look pins 0…1) expects.
///
/// Every value is a pure function of the mosaic around it and of the whole-image analysis
/// (summed in a fixed order), so tiles and threads never change a byte. An image with no clipped
/// photosite renders exactly as `.clip`.
struct HighlightRecovery: Sendable {
    /// Unclipped photosites at least this bright with a clipped photosite of their colour in
    /// their 5×5 window are rebuilt as well (never lowered).
    static let nearClip: Float = 0.85
    /// Radius of the reconstruction window (5×5) in photosites.
    static let reach = 2
    /// Cell edge of the ratio grid in pixels.
    static let cell = 32
    /// Weight of votes (Σ mean_d, ≈ one per bright border photosite) for a cell's own ratio.
    static let minimumVotes = 2.0
    /// A border photosite votes only where it or the other colour's mean is at least this bright
    /// (half the clipping level): darker ones sit across a hard edge from the highlight.
    static let minimumVoterLevel: Float = 0.5
    let gridWidth: Int, gridHeight: Int
    /// Ratio c/d per cell: `ratios[(c * 3 + d) * cells + cell]`; 1 on the diagonal.
    let ratios: [Float]
    /// 1 where the cell's ratio came from its own clipped area's border (else 0): `reached[(c * 3 + d) * cells + cell]`.
    let reached: [Float]
    /// Whether any cell had border votes for the pair (c, d): `usable[c * 3 + d]`.
    let usable: [Bool]

    /// The whole-image analysis, or nil when nothing is clipped (the render is then `.clip`'s).
    static func analyse(plan: DevelopPlan, source: TileRenderer.TileSource) -> HighlightRecovery? {
        let W = plan.width, H = plan.height, spp = plan.samplesPerPixel
        guard spp == 1 || spp == 3 else { return nil }
        let S = cell
        let gw = (W + S - 1) / S, gh = (H + S - 1) / S
        let cells = gw * gh
        // Σ value_c and Σ mean_d per pair and cell (band b owns cell row b: disjoint writes).
        var num = [Double](repeating: 0, count: 9 * cells), den = num
        // Per cell, bit c set when a photosite (sample) of colour c clips in it.
        var flags = [UInt8](repeating: 0, count: cells)
        num.withUnsafeMutableBufferPointer { numBuf in
        den.withUnsafeMutableBufferPointer { denBuf in
        flags.withUnsafeMutableBufferPointer { flagBuf in
            let out = AnalysisSink(num: numBuf.baseAddress!, den: denBuf.baseAddress!, flags: flagBuf.baseAddress!)
            let workers = max(1, min(plan.recipe.threads > 0 ? plan.recipe.threads : ProcessInfo.processInfo.activeProcessorCount, gh))
            let next = Atomic<Int>(0)
            let input = TileRenderer.SourceBox(source: source)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                var rows = [Float](repeating: 0, count: (S + 4) * W * spp)
                var cellNum = [Double](repeating: 0, count: 9 * gw), cellDen = cellNum
                var cellFlags = [UInt8](repeating: 0, count: gw)
                while true {
                    let b = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if b >= gh { break }
                    let y0 = b * S, y1 = min(y0 + S, H)
                    let ry = max(y0 - 2, 0), ryEnd = min(y1 + 2, H)
                    rows.withUnsafeMutableBufferPointer { buf in
                        TileRenderer.balancedRegion(plan: plan, source: input.source, into: buf.baseAddress!, rx: 0, ry: ry, rw: W,
                                                    ix0: 0, ix1: W, iy0: ry, iy1: ryEnd)
                    }
                    for i in cellNum.indices { cellNum[i] = 0; cellDen[i] = 0 }
                    for i in cellFlags.indices { cellFlags[i] = 0 }
                    rows.withUnsafeBufferPointer { buf in
                        spp == 1
                            ? scanMosaicBand(buf.baseAddress!, ry: ry, rowCount: ryEnd - ry, y0: y0, y1: y1, W: W, cfa: plan.cfa!,
                                             num: &cellNum, den: &cellDen, flags: &cellFlags)
                            : scanRGBBand(buf.baseAddress!, ry: ry, rowCount: ryEnd - ry, y0: y0, y1: y1, W: W,
                                          num: &cellNum, den: &cellDen, flags: &cellFlags)
                    }
                    for i in 0..<gw { out.flags[b * gw + i] = cellFlags[i] }
                    for p in 0..<9 {
                        for i in 0..<gw {
                            out.num[p * cells + b * gw + i] = cellNum[p * gw + i]
                            out.den[p * cells + b * gw + i] = cellDen[p * gw + i]
                        }
                    }
                }
            }
        }
        }
        }
        guard flags.contains(where: { $0 != 0 }) else { return nil }
        var ratios = [Float](repeating: 1, count: 9 * cells), reached = [Float](repeating: 0, count: 9 * cells)
        var usable = [Bool](repeating: false, count: 9)
        for c in 0..<3 { for d in 0..<3 where c != d {
            let p = c * 3 + d
            guard let field = filledRatios(num: Array(num[(p * cells)..<((p + 1) * cells)]),
                                           den: Array(den[(p * cells)..<((p + 1) * cells)]),
                                           within: flags.map { $0 & (1 << c) != 0 }, width: gw, height: gh) else { continue }
            usable[p] = true
            for i in 0..<cells { ratios[p * cells + i] = field.ratio[i]; reached[p * cells + i] = field.reached[i] ? 1 : 0 }
        } }
        return HighlightRecovery(gridWidth: gw, gridHeight: gh, ratios: ratios, reached: reached, usable: usable)
    }

    struct AnalysisSink: @unchecked Sendable {
        let num: UnsafeMutablePointer<Double>, den: UnsafeMutablePointer<Double>
        let flags: UnsafeMutablePointer<UInt8>
    }

    /// One band of a mosaic: `m` holds image rows `ry ..< ry + rowCount` (full width, balanced);
    /// marks the cells where a colour clips in rows `y0 ..< y1` (`flags`, bit per colour) and adds
    /// the border votes of those rows to the band's cell sums (`num`/`den`, pair-major, `gw` cells
    /// per pair).
    static func scanMosaicBand(_ m: UnsafePointer<Float>, ry: Int, rowCount: Int, y0: Int, y1: Int, W: Int, cfa: CFAPattern,
                               num: inout [Double], den: inout [Double], flags: inout [UInt8]) {
        let gw = num.count / 9
        // Rows (of the buffer) holding a clipped sample: only their neighbours need the border
        // test. The buffer holds two rows above and below the band (the 5×5 test reads them).
        var rowClips = [Bool](repeating: false, count: rowCount)
        for r in 0..<rowCount {
            let row = m + r * W
            let y = ry + r
            let inBand = y >= y0 && y < y1
            for x in 0..<W where row[x] >= 1 {
                rowClips[r] = true
                if inBand { flags[x / cell] |= 1 << cfa.color(x: x, y: y).rawValue }
            }
        }
        for y in y0..<y1 {
            let r = y - ry
            guard (max(r - 2, 0)...min(r + 2, rowCount - 1)).contains(where: { rowClips[$0] }) else { continue }
            let up = r > 0 ? r - 1 : r, down = r + 1 < rowCount ? r + 1 : r
            for x in 0..<W {
                let v = m[r * W + x]
                guard v < 1 else { continue }
                let xl = max(x - 1, 0), xr = min(x + 1, W - 1)
                // Border: a clipped photosite within 2 px (5×5), so a colour whose own sites are
                // 2 px apart (Bayer red and blue) sees its clipped neighbours too.
                var touches = false
                for rr in max(r - 2, 0)...min(r + 2, rowCount - 1) {
                    for xx in max(x - 2, 0)...min(x + 2, W - 1) where m[rr * W + xx] >= 1 { touches = true }
                }
                guard touches else { continue }
                // Neighbour means per colour among the 8 neighbours (clipped → that colour unusable).
                var sum = SIMD3<Float>(0, 0, 0), count = SIMD3<Float>(0, 0, 0), bad = SIMD3<Float>(0, 0, 0)
                for rr in up...down { for xx in xl...xr where !(rr == r && xx == x) {
                    let col = Int(cfa.color(x: xx, y: ry + rr).rawValue)
                    let u = m[rr * W + xx]
                    if u >= 1 { bad[col] = 1 } else { sum[col] += u; count[col] += 1 }
                } }
                let c = Int(cfa.color(x: x, y: y).rawValue)
                for d in 0..<3 where d != c && bad[d] == 0 && count[d] > 0 {
                    let mean = sum[d] / count[d]
                    // A dark photosite beside a hard-edged highlight says nothing about its hue.
                    guard max(v, mean) >= minimumVoterLevel else { continue }
                    let p = c * 3 + d
                    num[p * gw + x / cell] += Double(v)
                    den[p * gw + x / cell] += Double(mean)
                }
            }
        }
    }

    /// `scanMosaicBand` for an RGB image (3 interleaved samples): every pixel with a clipped
    /// sample within 2 px votes, for each pair of its own channels that are both unclipped (and
    /// the brighter at least `minimumVoterLevel`), their ratio.
    static func scanRGBBand(_ m: UnsafePointer<Float>, ry: Int, rowCount: Int, y0: Int, y1: Int, W: Int,
                            num: inout [Double], den: inout [Double], flags: inout [UInt8]) {
        let gw = num.count / 9
        var rowClips = [Bool](repeating: false, count: rowCount)
        for r in 0..<rowCount {
            let y = ry + r
            let inBand = y >= y0 && y < y1
            for x in 0..<W { for s in 0..<3 where m[(r * W + x) * 3 + s] >= 1 {
                rowClips[r] = true
                if inBand { flags[x / cell] |= 1 << s }
            } }
        }
        for y in y0..<y1 {
            let r = y - ry
            let rows = max(r - 2, 0)...min(r + 2, rowCount - 1)
            guard rows.contains(where: { rowClips[$0] }) else { continue }
            for x in 0..<W {
                let p = m + (r * W + x) * 3
                var touches = false
                for rr in rows { for xx in max(x - 2, 0)...min(x + 2, W - 1) {
                    let q = m + (rr * W + xx) * 3
                    if q[0] >= 1 || q[1] >= 1 || q[2] >= 1 { touches = true }
                } }
                guard touches else { continue }
                for c in 0..<3 where p[c] < 1 { for d in 0..<3 where d != c && p[d] < 1 && max(p[c], p[d]) >= minimumVoterLevel {
                    num[(c * 3 + d) * gw + x / cell] += Double(p[c])
                    den[(c * 3 + d) * gw + x / cell] += Double(p[d])
                } }
            }
        }
    }

    /// Per-cell ratios: Σnum/Σden where a cell has at least `minimumVotes` of weight; from there
    /// the ratio spreads breadth-first in 8-connected rings — each new cell the mean of its
    /// already-filled neighbours, in index order — but only through cells `within` (those where
    /// the colour clips), so a clipped area takes the ratio of its own border, not of another
    /// highlight nearby (`reached`). Cells still empty are then filled the same way without the
    /// restriction (they only matter as interpolation neighbours). Ratios clamped to 1/64…64;
    /// nil when no cell voted.
    static func filledRatios(num: [Double], den: [Double], within: [Bool], width: Int, height: Int)
        -> (ratio: [Float], reached: [Bool])? {
        let n = width * height
        var ratio = [Double](repeating: 0, count: n)
        var filled = [Bool](repeating: false, count: n)
        var seeds: [Int] = []
        for i in 0..<n where den[i] >= minimumVotes && num[i] > 0 {
            ratio[i] = num[i] / den[i]
            filled[i] = true
            seeds.append(i)
        }
        guard !seeds.isEmpty else { return nil }
        func flood(from start: [Int], allowed: (Int) -> Bool) {
            var frontier = start
            var queued = filled
            while !frontier.isEmpty {
                var ring: [Int] = []
                for i in frontier {
                    let x = i % width, y = i / width
                    for yy in max(y - 1, 0)...min(y + 1, height - 1) {
                        for xx in max(x - 1, 0)...min(x + 1, width - 1) {
                            let k = yy * width + xx
                            if !queued[k] && allowed(k) { queued[k] = true; ring.append(k) }
                        }
                    }
                }
                ring.sort()
                var values = [Double](repeating: 0, count: ring.count)
                for (r, i) in ring.enumerated() {
                    let x = i % width, y = i / width
                    var sum = 0.0, count = 0.0
                    for yy in max(y - 1, 0)...min(y + 1, height - 1) {
                        for xx in max(x - 1, 0)...min(x + 1, width - 1) where filled[yy * width + xx] {
                            sum += ratio[yy * width + xx]; count += 1
                        }
                    }
                    values[r] = sum / count
                }
                for (r, i) in ring.enumerated() { ratio[i] = values[r]; filled[i] = true }
                frontier = ring
            }
        }
        flood(from: seeds, allowed: { within[$0] })
        let reached = filled
        flood(from: (0..<n).filter { filled[$0] }, allowed: { _ in true })
        return (ratio.map { Float(min(max($0, 1.0 / 64), 64)) }, reached)
    }

    /// Ratio c/d at image position (x, y): bilinear between cell centres.
    @inline(__always)
    func ratio(_ c: Int, _ d: Int, x: Int, y: Int) -> Float {
        let S = Float(Self.cell)
        let fx = min(max((Float(x) + 0.5) / S - 0.5, 0), Float(gridWidth - 1))
        let fy = min(max((Float(y) + 0.5) / S - 0.5, 0), Float(gridHeight - 1))
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, gridWidth - 1), y1 = min(y0 + 1, gridHeight - 1)
        let tx = fx - Float(x0), ty = fy - Float(y0)
        let base = (c * 3 + d) * gridWidth * gridHeight
        let i00 = base + y0 * gridWidth + x0, i01 = base + y0 * gridWidth + x1
        let i10 = base + y1 * gridWidth + x0, i11 = base + y1 * gridWidth + x1
        // Corners reached from this area's own border only (all four when none was).
        var w00 = (1 - tx) * (1 - ty), w01 = tx * (1 - ty), w10 = (1 - tx) * ty, w11 = tx * ty
        let r00 = reached[i00], r01 = reached[i01], r10 = reached[i10], r11 = reached[i11]
        if r00 + r01 + r10 + r11 > 0 { w00 *= r00; w01 *= r01; w10 *= r10; w11 *= r11 }
        let total = w00 + w01 + w10 + w11
        guard total > 0 else { return ratios[i00] }
        return (ratios[i00] * w00 + ratios[i01] * w01 + ratios[i10] * w10 + ratios[i11] * w11) / total
    }

    /// Step 2 on a tile's balanced mosaic region: `m` holds image pixel (rx + i, ry + j) at
    /// `j * rw + i` (mirrored outside the image), `rw × rh`; `copy` is scratch of ≥ rw · rh
    /// floats. Each clipped photosite takes the means of the unclipped samples of the other
    /// colours in its 5×5 window (at least two each; a wider window than the analysis's 3×3,
    /// so single-photosite noise does not speckle the result). Photosites within `reach` of the
    /// region's edge are left as they are (their windows are not in the region): the caller
    /// fetches `reach` more rings than the demosaic needs.
    func reconstructMosaic(_ m: UnsafeMutablePointer<Float>, copy: UnsafeMutablePointer<Float>, rx: Int, ry: Int,
                           rw: Int, rh: Int, cfa: CFAPattern, imageWidth W: Int, imageHeight H: Int) {
        let R = Self.reach
        guard rw > 2 * R, rh > 2 * R else { return }
        var any = false
        for i in 0..<(rw * rh) where m[i] >= 1 { any = true; break }
        guard any else { return }
        copy.update(from: m, count: rw * rh)
        for j in R..<(rh - R) {
            let y = ry + j
            for i in R..<(rw - R) where copy[j * rw + i] >= Self.nearClip {
                let x = rx + i
                let v = copy[j * rw + i]
                let c = Int(cfa.color(x: x, y: y).rawValue)
                // Means of the unclipped samples of each colour in the 5×5 window.
                var sum = SIMD3<Float>(0, 0, 0), count = SIMD3<Float>(0, 0, 0)
                var sameClipped = false
                for jj in (j - R)...(j + R) { for ii in (i - R)...(i + R) {
                    let u = copy[jj * rw + ii]
                    let col = Int(cfa.color(x: rx + ii, y: ry + jj).rawValue)
                    if u < 1 { sum[col] += u; count[col] += 1 } else if col == c { sameClipped = true }
                } }
                // An unclipped photosite is rebuilt too when it is near the clip inside a clipped
                // area of its colour (noise dipped it below): else it would show as a speck there.
                guard v >= 1 || sameClipped else { continue }
                let ix = TileRenderer.mirror(x, W), iy = TileRenderer.mirror(y, H)
                var estimate: Float = 0, n: Float = 0
                for d in 0..<3 where d != c && count[d] >= 2 && usable[c * 3 + d] {
                    estimate += sum[d] / count[d] * ratio(c, d, x: ix, y: iy)
                    n += 1
                }
                if n > 0 { m[j * rw + i] = max(v, estimate / n) }
            }
        }
    }

    /// Step 2 on a tile's balanced RGB region (3 interleaved samples per pixel, `rw × rh`, image
    /// pixel (rx + i, ry + j) at `(j * rw + i) * 3`, mirrored outside the image): as
    /// `reconstructMosaic`, per channel, with the other channels' means over the unclipped samples
    /// of the 5×5 window (a pixel's own values alone are too noisy near the clip). Pixels within
    /// `reach` of the region's edge are left as they are.
    func reconstructRGB(_ m: UnsafeMutablePointer<Float>, rx: Int, ry: Int, rw: Int, rh: Int,
                        imageWidth W: Int, imageHeight H: Int) {
        let R = Self.reach
        guard rw > 2 * R, rh > 2 * R else { return }
        var any = false
        for i in 0..<(rw * rh * 3) where m[i] >= 1 { any = true; break }
        guard any else { return }
        withUnsafeTemporaryAllocation(of: Float.self, capacity: rw * rh * 3) { buffer in
            let copy = buffer.baseAddress!
            copy.update(from: m, count: rw * rh * 3)
            for j in R..<(rh - R) {
                for i in R..<(rw - R) {
                    let p = copy + (j * rw + i) * 3
                    guard max(max(p[0], p[1]), p[2]) >= Self.nearClip else { continue }
                    var sum = SIMD3<Float>(0, 0, 0), count = SIMD3<Float>(0, 0, 0), clipped = SIMD3<Float>(0, 0, 0)
                    for jj in (j - R)...(j + R) { for ii in (i - R)...(i + R) {
                        let q = copy + (jj * rw + ii) * 3
                        for s in 0..<3 { if q[s] < 1 { sum[s] += q[s]; count[s] += 1 } else { clipped[s] = 1 } }
                    } }
                    let ix = TileRenderer.mirror(rx + i, W), iy = TileRenderer.mirror(ry + j, H)
                    let out = m + (j * rw + i) * 3
                    for c in 0..<3 where p[c] >= 1 || (p[c] >= Self.nearClip && clipped[c] > 0) {
                        var estimate: Float = 0, n: Float = 0
                        for d in 0..<3 where d != c && count[d] >= 2 && usable[c * 3 + d] {
                            estimate += sum[d] / count[d] * ratio(c, d, x: ix, y: iy)
                            n += 1
                        }
                        if n > 0 { out[c] = max(p[c], estimate / n) }
                    }
                }
            }
        }
    }

    /// Step 3: pixels whose largest channel exceeds 1 are scaled by 1 / max (three planes,
    /// `width × height`, rows `stride` apart).
    static func compress(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
                         stride: Int, width: Int, height: Int) {
        for y in 0..<height {
            let o = y * stride
            for x in 0..<width {
                let m = max(max(r[o + x], g[o + x]), b[o + x])
                if m > 1 {
                    let s = 1 / m
                    r[o + x] *= s; g[o + x] *= s; b[o + x] *= s
                }
            }
        }
    }

    /// Step 3 on interleaved RGB rows.
    static func compressInterleaved(_ rgb: UnsafeMutablePointer<Float>, width: Int, height: Int, rowStride: Int) {
        for y in 0..<height {
            let row = rgb + y * rowStride
            for x in 0..<width {
                let p = row + x * 3
                let m = max(max(p[0], p[1]), p[2])
                if m > 1 {
                    let s = 1 / m
                    p[0] *= s; p[1] *= s; p[2] *= s
                }
            }
        }
    }
}
