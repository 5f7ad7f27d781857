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
    }

    deinit { lf_modifier_destroy(modifier) }

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
                // The cell of x, min(x / step, nx − 2), stepped along the row (no division per pixel).
                var i = i0
                for j in 0..<count {
                    let x = x0 + j
                    while i < nx - 2 && x >= xs[i + 1] { i += 1 }
                    let out = positions + j * 6
                    if cells[i] != 0 {
                        exactSourcePositions(x0: x, y: y, count: 1, into: out)
                        continue
                    }
                    let tx = Float(x - xs[i]) * inv[i]
                    let a = row + (i - i0) * 6, b = a + 6
                    let fx = Float(x)
                    if j + 1 < count {
                        // Eight lanes at once (the last two spill into the next pixel, written after):
                        // each lane the scalar operations below.
                        let va = UnsafeRawPointer(a).loadUnaligned(as: SIMD8<Float>.self)
                        let vb = UnsafeRawPointer(b).loadUnaligned(as: SIMD8<Float>.self)
                        let f = SIMD8<Float>(fx, fy, fx, fy, fx, fy, fx, fy)
                        UnsafeMutableRawPointer(out).storeBytes(of: f + (va + (vb - va) * tx), as: SIMD8<Float>.self)
                        continue
                    }
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

    /// lensfun's gain on a row of ones (one intensity component per pixel: a third of the work of
    /// correcting interleaved RGB, where every component gets the same gain).
    func vignettingGains(x0: Int, y: Int, count: Int, into gains: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        gains.update(repeating: 1, count: count)
        _ = lf_modifier_apply_color_modification(modifier, gains, Float(x0), Float(y), Int32(count), 1,
                                                 Int32(LF_CR_INTENSITY.rawValue), Int32(count * MemoryLayout<Float>.size))
    }

    func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int) {
        guard count > 0 else { return }
        _ = lf_modifier_apply_color_modification(modifier, rgb, Float(x0), Float(y), Int32(count), 1, Self.rgbRole,
                                                 Int32(count * 3 * MemoryLayout<Float>.size))
    }
}
