import CLensfun
import DarkroomCore

/// `LensModifier` through lensfun's `lfModifier` (correcting, not simulating: lensfun's
/// `reverse = false`), for one image size, focal length, aperture and distance.
///
/// lensfun's kernels step along a row by repeated addition, so the values of a pixel depend on
/// where a call starts; `LensResampler` always starts calls at the same fixed column blocks, and
/// the interpolated positions (`buildGrid`) depend on the pixel's position alone. The modifier is
/// only read after `init` and `buildGrid`, so concurrent calls are safe.
final class LensfunModifier: LensModifier, @unchecked Sendable {
    private let modifier: UnsafeMutablePointer<lfModifier>
    /// The corrections lensfun set up (`LF_MODIFY_*` bits).
    let appliedFlags: Int32
    /// The image size the modifier was made for, in pixels.
    let width: Int, height: Int

    /// lensfun's component roles for interleaved R, G, B (`LF_CR_3(RED, GREEN, BLUE)`).
    private static let rgbRole = Int32(LF_CR_RED.rawValue) | Int32(LF_CR_GREEN.rawValue) << 4 | Int32(LF_CR_BLUE.rawValue) << 8

    /// A modifier for `lens` on a sensor of `cropFactor`, an image `width × height`, with the
    /// corrections in `flags` (`LF_MODIFY_*`) at `scale`; nil when lensfun cannot build one.
    init?(lens: UnsafePointer<lfLens>, cropFactor: Float, width: Int, height: Int, focal: Float, aperture: Float,
          distance: Float, scale: Float, flags: Int32) {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max),
              let m = lf_modifier_new(lens, cropFactor, Int32(width), Int32(height)) else { return nil }
        modifier = m
        self.width = width
        self.height = height
        var wanted = flags
        if scale != 1 { wanted |= Int32(LF_MODIFY_SCALE) }
        appliedFlags = lf_modifier_initialize(m, lens, LF_PF_F32, focal, aperture, distance, scale, lens.pointee.`Type`,
                                              wanted, 0)
        if appliedFlags & Int32(LF_MODIFY_VIGNETTING) != 0,
           let model = Self.radialModel(lens: lens, cropFactor: cropFactor, width: width, height: height, focal: focal,
                                        aperture: aperture, distance: distance),
           Self.deviation(of: model, from: self, samples: Self.checkSamples(width: width, height: height)) <= Self.vignettingTolerance {
            radialVignetting = model
        }
    }

    deinit { lf_modifier_destroy(modifier) }

    /// The vignetting gain as a radial model (lensfun's pa coefficients for this shot, in lensfun's
    /// coordinates), when it matched lensfun's own gains within `vignettingTolerance` at
    /// `checkSamples` (else nil, and the gains are lensfun's).
    private(set) var radialVignetting: RadialVignetting?

    /// The largest relative difference from lensfun's gain the radial model may make.
    static let vignettingTolerance: Float = 1e-4

    /// The pa model for `lens` on this image, with lensfun 0.3's normalisation (`lfModifier`'s
    /// constructor and `AddColorCallbackVignetting`): pixel → (x · NormScale − CenterX) /
    /// AspectRatioCorrection, where NormScale = 2 / (min(width, height) − 1) · c, CenterX =
    /// (width / min(width, height) + lens CenterX) · c, c = 1 / √(aspect² + 1) · lens crop factor /
    /// camera crop factor · AspectRatioCorrection and AspectRatioCorrection = √(lens aspect² + 1)
    /// (the calibration sensor's half diagonal is 1). Nil when lensfun has no pa data for the shot.
    static func radialModel(lens: UnsafePointer<lfLens>, cropFactor: Float, width: Int, height: Int, focal: Float,
                            aperture: Float, distance: Float) -> RadialVignetting? {
        var calib = lfLensCalibVignetting()
        guard lf_lens_interpolate_vignetting(lens, focal, aperture, distance, &calib) != 0,
              calib.Model == LF_VIGNETTING_MODEL_PA, cropFactor > 0 else { return nil }
        // Distances between the first and last pixel centres.
        let w = Float(max(width - 1, 1)), h = Float(max(height - 1, 1))
        let size = min(w, h)
        let imageAspect = w < h ? h / w : w / h
        let lensAspect = Double(lens.pointee.AspectRatio)
        let aspectCorrection = (lensAspect * lensAspect + 1).squareRoot()
        let correction = Float(1 / Double(imageAspect * imageAspect + 1).squareRoot()
                               * Double(lens.pointee.CropFactor) / Double(cropFactor) * aspectCorrection)
        let normScale = 2 / Double(size) * Double(correction)
        let centreX = Double(w / size + lens.pointee.CenterX) * Double(correction)
        let centreY = Double(h / size + lens.pointee.CenterY) * Double(correction)
        let model = RadialVignetting(k1: calib.Terms.0, k2: calib.Terms.1, k3: calib.Terms.2,
                                     scale: Float(normScale / aspectCorrection),
                                     offsetX: Float(centreX / aspectCorrection), offsetY: Float(centreY / aspectCorrection))
        guard model.scale.isFinite, model.offsetX.isFinite, model.offsetY.isFinite,
              model.k1.isFinite, model.k2.isFinite, model.k3.isFinite else { return nil }
        return model
    }

    /// Pixels `init` compares the radial model with lensfun at: a 17 × 17 grid over the image,
    /// corners and centre included.
    static func checkSamples(width: Int, height: Int) -> [(x: Int, y: Int)] {
        var points: [(x: Int, y: Int)] = []
        for j in 0...16 {
            for i in 0...16 { points.append(((width - 1) * i / 16, (height - 1) * j / 16)) }
        }
        return points
    }

    /// The largest relative difference between `model`'s gain and lensfun's (`vignettingGains`,
    /// each pixel asked alone) at `samples` (infinity when lensfun's is not positive and finite).
    static func deviation(of model: RadialVignetting, from modifier: LensfunModifier, samples: [(x: Int, y: Int)]) -> Float {
        var worst: Float = 0
        var g: Float = 0
        for p in samples {
            modifier.lensfunVignettingGains(x0: p.x, y: p.y, count: 1, into: &g)
            guard g.isFinite, g > 0 else { return .infinity }
            worst = max(worst, abs(model.gains(x0: p.x, y: p.y)[0] / g - 1))
        }
        return worst
    }

    /// lensfun's scale that makes the corrected image fill the frame (1 when nothing moves).
    var autoScale: Float { lf_modifier_get_auto_scale(modifier, 0) }

    /// Spacing in pixels of the grid of lensfun positions `sourcePositions` interpolates (nodes at
    /// multiples of it in x and y, plus the last column and row).
    static let gridStep = 16

    /// The interpolation grid (`buildGrid`): node columns and rows, and per node the displacement
    /// (source position − node position) of red, green and blue, 6 floats; empty: none built.
    private var gridXs: [Int] = [], gridYs: [Int] = []
    private var grid: [Float] = []
    /// 1 / width of each grid cell in x (the last one may be narrower than `gridStep`).
    private var gridInverseWidths: [Float] = []
    /// Per grid cell (row-major, (columns − 1) × (rows − 1)): 1 when its positions are not
    /// interpolated but asked of lensfun pixel by pixel (`buildGrid`'s check failed), else 0.
    private(set) var exactCells: [UInt8] = []
    /// The largest interpolation error (px) `buildGrid` accepts at a cell's centre.
    static let positionTolerance: Float = 0.005

    /// Computes lensfun's positions (distortion and TCA) on a grid fixed in image coordinates (every
    /// `gridStep` pixels in x and y, plus the last column and row; one lensfun call per node, so each
    /// node's value does not depend on any other), which `sourcePositions` then interpolates
    /// bilinearly instead of asking lensfun for every pixel. Distortion and TCA are smooth
    /// polynomials in the radius, so the interpolated positions stay within thousandths of a pixel
    /// of lensfun's (`LensGridTests` measures it); each cell is checked at its centre and asked of
    /// lensfun pixel by pixel if it errs there by more than `positionTolerance`. Call once, before
    /// the modifier is shared between threads; nothing is built without distortion or TCA.
    func buildGrid() {
        let step = Self.gridStep
        guard width >= 2, height >= 2,
              appliedFlags & (Int32(LF_MODIFY_DISTORTION) | Int32(LF_MODIFY_TCA)) != 0 else { return }
        func nodes(_ n: Int) -> [Int] {
            var v = Array(stride(from: 0, to: n - 1, by: step))
            v.append(n - 1)
            return v
        }
        let xs = nodes(width), ys = nodes(height)
        var g = [Float](repeating: 0, count: xs.count * ys.count * 6)
        var p = [Float](repeating: 0, count: 6)
        for (j, ny) in ys.enumerated() {
            for (i, nx) in xs.enumerated() {
                let node = j * xs.count + i
                let moved = p.withUnsafeMutableBufferPointer { b in
                    lf_modifier_apply_subpixel_geometry_distortion(modifier, Float(nx), Float(ny), 1, 1, b.baseAddress!) != 0
                }
                guard moved else { continue }
                for c in 0..<3 {
                    g[node * 6 + 2 * c] = p[2 * c] - Float(nx)
                    g[node * 6 + 2 * c + 1] = p[2 * c + 1] - Float(ny)
                }
            }
        }
        gridXs = xs
        gridYs = ys
        grid = g
        gridInverseWidths = (0..<(xs.count - 1)).map { 1 / Float(xs[$0 + 1] - xs[$0]) }
        // Check each cell at its centre (where bilinear interpolation errs most) against lensfun for
        // that pixel alone; cells that fail (a model far from smooth there: e.g. a fisheye's corners
        // outside its image circle) are asked of lensfun pixel by pixel.
        var flags = [UInt8](repeating: 0, count: (xs.count - 1) * (ys.count - 1))
        exactCells = flags
        var interpolated = [Float](repeating: 0, count: 6), exact = interpolated
        for j in 0..<(ys.count - 1) {
            for i in 0..<(xs.count - 1) {
                let cx = (xs[i] + xs[i + 1]) / 2, cy = (ys[j] + ys[j + 1]) / 2
                interpolated.withUnsafeMutableBufferPointer { sourcePositions(x0: cx, y: cy, count: 1, into: $0.baseAddress!) }
                exact.withUnsafeMutableBufferPointer { exactSourcePositions(x0: cx, y: cy, count: 1, into: $0.baseAddress!) }
                if !zip(interpolated, exact).allSatisfy({ abs($0 - $1) <= Self.positionTolerance }) { flags[j * (xs.count - 1) + i] = 1 }
            }
        }
        exactCells = flags
    }

    /// Source positions by bilinear interpolation of the grid's displacements (`buildGrid`), or
    /// lensfun's own when no grid was built or the pixels lie outside the image. Each pixel's
    /// value depends only on its (x, y): the vertical step interpolates the grid row pair at y, the
    /// horizontal one the cell around x.
    func sourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        guard !grid.isEmpty, x0 >= 0, y >= 0, y < height, count <= width - x0 else {
            exactSourcePositions(x0: x0, y: y, count: count, into: positions)
            return
        }
        let step = Self.gridStep
        let nx = gridXs.count
        let gy = min(y / step, gridYs.count - 2)
        let ty = Float(y - gridYs[gy]) / Float(gridYs[gy + 1] - gridYs[gy])
        let i0 = min(x0 / step, nx - 2), i1 = min((x0 + count - 1) / step, nx - 2)
        let nodes = i1 + 2 - i0
        grid.withUnsafeBufferPointer { gb in
        gridXs.withUnsafeBufferPointer { xs in
        gridInverseWidths.withUnsafeBufferPointer { inv in
        exactCells.withUnsafeBufferPointer { cellFlags in
            // (+2: the last node's displacements are read as eight floats.)
            withUnsafeTemporaryAllocation(of: Float.self, capacity: nodes * 6 + 2) { rowBuffer in
                let row = rowBuffer.baseAddress!
                // Displacements of the node columns i0…i1+1 at row y.
                let top = gb.baseAddress! + (gy * nx + i0) * 6, bottom = top + nx * 6
                for k in 0..<(nodes * 6) { row[k] = top[k] + (bottom[k] - top[k]) * ty }
                row[nodes * 6] = 0; row[nodes * 6 + 1] = 0
                let fy = Float(y)
                let cells = cellFlags.baseAddress! + gy * (nx - 1)
                // Cell by cell along the row (cell i holds x from xs[i] up to xs[i + 1], the last one
                // to the end): its two displacement columns loaded once, then each pixel's lanes.
                var j = 0
                var i = i0
                while j < count {
                    let end = i < nx - 2 ? min(count, xs[i + 1] - x0) : count
                    defer { j = max(j, end); i += 1 }
                    guard end > j else { continue }
                    if cells[i] != 0 {
                        for k in j..<end { exactSourcePositions(x0: x0 + k, y: y, count: 1, into: positions + k * 6) }
                        continue
                    }
                    let a = row + (i - i0) * 6, b = a + 6
                    let va = UnsafeRawPointer(a).loadUnaligned(as: SIMD8<Float>.self)
                    let vd = UnsafeRawPointer(b).loadUnaligned(as: SIMD8<Float>.self) - va
                    let left = xs[i], inverse = inv[i]
                    // Eight lanes at once (the last two spill into the next pixel, written after): each
                    // lane the scalar operations of the row's last pixel below.
                    let stop = min(end, count - 1)
                    var k = j
                    while k < stop {
                        let x = x0 + k
                        let tx = Float(x - left) * inverse
                        let fx = Float(x)
                        let f = SIMD8<Float>(fx, fy, fx, fy, fx, fy, fx, fy)
                        UnsafeMutableRawPointer(positions + k * 6).storeBytes(of: f + (va + vd * tx), as: SIMD8<Float>.self)
                        k += 1
                    }
                    if k < end {
                        // The row's last pixel: six floats only.
                        let x = x0 + k
                        let tx = Float(x - left) * inverse
                        let fx = Float(x)
                        let out = positions + k * 6
                        out[0] = fx + (a[0] + (b[0] - a[0]) * tx); out[1] = fy + (a[1] + (b[1] - a[1]) * tx)
                        out[2] = fx + (a[2] + (b[2] - a[2]) * tx); out[3] = fy + (a[3] + (b[3] - a[3]) * tx)
                        out[4] = fx + (a[4] + (b[4] - a[4]) * tx); out[5] = fy + (a[5] + (b[5] - a[5]) * tx)
                    }
                }
            }
        }
        }
        }
        }
    }

    /// Bounds of the source positions of `tile` from the grid alone: each interpolated position is
    /// its pixel plus the bilinear interpolation of its cell's four node displacements, and the
    /// pixel is the same interpolation of the node coordinates, so the position is a convex
    /// combination of the nodes' source positions (node + displacement) and lies within their
    /// smallest and largest; over the part of a cell the tile covers, at that rectangle's corners
    /// (widened by `boundsMargin` for the interpolation's rounding). Nil without a grid, when one of those cells is asked of lensfun pixel by pixel
    /// (`exactCells`), a displacement is not finite, or the tile reaches outside the image.
    func sourceBounds(of tile: PixelRect) -> SourceBounds? {
        guard !grid.isEmpty, tile.width > 0, tile.height > 0, tile.x >= 0, tile.y >= 0,
              tile.maxX <= width, tile.maxY <= height else { return nil }
        let step = Self.gridStep
        let nx = gridXs.count, ny = gridYs.count
        let i0 = min(tile.x / step, nx - 2), i1 = min((tile.maxX - 1) / step, nx - 2)
        let j0 = min(tile.y / step, ny - 2), j1 = min((tile.maxY - 1) / step, ny - 2)
        var lo = SIMD2<Float>(repeating: .infinity), hi = SIMD2<Float>(repeating: -.infinity)
        for j in j0...j1 {
            for i in i0...i1 where exactCells[j * (nx - 1) + i] != 0 { return nil }
        }
        // Per cell, the part the tile covers: its positions are the bilinear interpolation of
        // the nodes' source positions, whose extremes over a rectangle are at its corners.
        for j in j0...j1 {
            let ya = Float(gridYs[j]), yb = Float(gridYs[j + 1])
            let y0 = max(Float(tile.y), ya), y1 = min(Float(tile.maxY - 1), yb)
            let v0 = (y0 - ya) / (yb - ya), v1 = (y1 - ya) / (yb - ya)
            for i in i0...i1 {
                let xa = Float(gridXs[i]), xb = Float(gridXs[i + 1])
                let x0 = max(Float(tile.x), xa), x1 = min(Float(tile.maxX - 1), xb)
                let u0 = (x0 - xa) / (xb - xa), u1 = (x1 - xa) / (xb - xa)
                let n00 = (j * nx + i) * 6, n10 = n00 + 6, n01 = n00 + nx * 6, n11 = n01 + 6
                for c in 0..<3 {
                    // Node source positions (node + displacement) of the cell's four corners.
                    func at(_ n: Int, _ x: Float, _ y: Float) -> SIMD2<Float> {
                        SIMD2(x + grid[n + 2 * c], y + grid[n + 2 * c + 1])
                    }
                    let p00 = at(n00, xa, ya), p10 = at(n10, xb, ya), p01 = at(n01, xa, yb), p11 = at(n11, xb, yb)
                    guard all(p00 .== p00), all(p10 .== p10), all(p01 .== p01), all(p11 .== p11),
                          p00.x.isFinite, p00.y.isFinite, p10.x.isFinite, p10.y.isFinite,
                          p01.x.isFinite, p01.y.isFinite, p11.x.isFinite, p11.y.isFinite else { return nil }
                    for (u, v) in [(u0, v0), (u1, v0), (u0, v1), (u1, v1)] {
                        let top = p00 + (p10 - p00) * u, bottom = p01 + (p11 - p01) * u
                        let q = top + (bottom - top) * v
                        lo = pointwiseMin(lo, q)
                        hi = pointwiseMax(hi, q)
                    }
                }
            }
        }
        let m = Self.boundsMargin
        return SourceBounds(minX: lo.x - m, minY: lo.y - m, maxX: hi.x + m, maxY: hi.y + m)
    }

    /// Pixels `sourceBounds` adds on every side for the rounding of the interpolation (a few
    /// Float ulps of coordinates below 2^16: thousandths of a pixel).
    static let boundsMargin: Float = 0.01

    /// lensfun's own source positions for (x0 + i, y), one call for the run (what the grid's nodes
    /// are made of, and the reference its interpolation is measured against).
    func exactSourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        if lf_modifier_apply_subpixel_geometry_distortion(modifier, Float(x0), Float(y), Int32(count), 1, positions) == 0 {
            // Nothing moves: every channel reads its own pixel.
            for i in 0..<count {
                for c in 0..<3 { positions[i * 6 + 2 * c] = Float(x0 + i); positions[i * 6 + 2 * c + 1] = Float(y) }
            }
        }
    }

    /// The radial model's gains when there is one (`radialVignetting`), else lensfun's.
    func vignettingGains(x0: Int, y: Int, count: Int, into gains: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        if let radial = radialVignetting {
            var i = 0
            while i < count {
                let g = radial.gains(x0: x0 + i, y: y)
                for k in 0..<min(8, count - i) { gains[i + k] = g[k] }
                i += 8
            }
            return
        }
        lensfunVignettingGains(x0: x0, y: y, count: count, into: gains)
    }

    /// lensfun's gain on a row of ones (one intensity component per pixel: a third of the work of
    /// correcting interleaved RGB, where every component gets the same gain).
    func lensfunVignettingGains(x0: Int, y: Int, count: Int, into gains: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        gains.update(repeating: 1, count: count)
        _ = lf_modifier_apply_color_modification(modifier, gains, Float(x0), Float(y), Int32(count), 1,
                                                 Int32(LF_CR_INTENSITY.rawValue), Int32(count * MemoryLayout<Float>.size))
    }

    /// Multiplies `count` interleaved RGB pixels at (x0 + i, y) by their gains: the radial model's
    /// when there is one (`radialVignetting`), else lensfun's.
    func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int) {
        guard count > 0 else { return }
        if let radial = radialVignetting {
            var i = 0
            while i < count {
                let g = radial.gains(x0: x0 + i, y: y)
                for k in 0..<min(8, count - i) {
                    for c in 0..<3 { rgb[(i + k) * 3 + c] *= g[k] }
                }
                i += 8
            }
            return
        }
        _ = lf_modifier_apply_color_modification(modifier, rgb, Float(x0), Float(y), Int32(count), 1, Self.rgbRole,
                                                 Int32(count * 3 * MemoryLayout<Float>.size))
    }
}
