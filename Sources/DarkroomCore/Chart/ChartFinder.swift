import Foundation

/// Finds a ColorChecker 24 in a `CameraRGBImage` (`darkroom compare --chart auto`), under
/// rotation, mild perspective and exposure error.
///
/// 1. A working image: the display image box-averaged by an integer factor so its long side is at
///    most `workingSize` pixels, as log RGB (floor 1e-5): exposure then only shifts values.
/// 2. Flat regions: 4-connected region growing in raster order; a pixel joins a region when each
///    log channel is within `tolerance` of the region's seed pixel.
/// 3. Square regions: from each region's second moments, the sides of the equivalent rectangle
///    a ≥ b = √(12 λ) (λ the covariance eigenvalues); kept when a / b ≤ 1.8, area / (a·b) in
///    0.75…1.2 and the area between 12 working pixels and 1/24 of the image.
/// 4. The patch lattice (among at most `maximumSquares` candidates, the largest): squares joined when their centres are 0.7…1.5 × the median
///    nearest-neighbour distance apart and their sizes agree within 1.6×; the largest connected
///    group is the chart. Its lattice angle is the mean of 4 × the neighbour directions (mod 90°);
///    rotated by it, centres cluster into columns and rows (gaps > half the pitch). The lattice
///    must be 6 × 4 or 4 × 6 with at least `minimumPatches` patches found (the black patch often
///    merges with the chart's dark surround).
/// 5. Which corner is patch 1: for each of the four turns of the lattice, a least-squares
///    homography from the layout's patch centres to the found centres gives the grid corners; the
///    patches are sampled (`PatchSampler`) and the turn whose means are best explained by one 3 × 3
///    matrix onto the reference XYZ (smallest relative residual) wins.
public enum ChartFinder {
    /// Why no chart was found.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case notFound(reason: String)
        public var description: String {
            switch self { case .notFound(let r): return "no ColorChecker 24 found (\(r)); give its corners with --chart x1,y1,…,x4,y4" }
        }
    }

    /// A found chart: the patch-grid corners in display coordinates (top-left = patch 1's outer
    /// corner, then clockwise in chart terms), how many patches segmentation found, and the
    /// relative colour-fit residual of the chosen turn.
    public struct Result: Sendable, Equatable {
        public var corners: [SIMD2<Double>]
        public var patchesFound: Int
        public var residual: Double
    }

    /// Long side of the working image, pixels.
    public static let workingSize = 480
    /// Region-growing tolerance in natural-log units (≈ 8 % per channel).
    public static let tolerance = 0.08
    /// Most candidate squares the lattice search considers (the largest are kept).
    public static let maximumSquares = 1500
    /// Fewest patches segmentation must find.
    public static let minimumPatches = 16

    struct Region {
        var count = 0
        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        var centre: SIMD2<Double> { SIMD2(sx, sy) / Double(count) }
        /// Sides (a ≥ b) of the rectangle with the same second moments.
        var sides: (a: Double, b: Double) {
            let n = Double(count), c = centre
            let vxx = sxx / n - c.x * c.x, vyy = syy / n - c.y * c.y, vxy = sxy / n - c.x * c.y
            let t = (vxx + vyy) / 2, d = (((vxx - vyy) / 2) * ((vxx - vyy) / 2) + vxy * vxy).squareRoot()
            return ((12 * max(t + d, 0)).squareRoot(), (12 * max(t - d, 0)).squareRoot())
        }
    }

    /// Finds the chart; `reference` is the layout's reference XYZ (any white, any scale), used only
    /// to decide which corner is patch 1.
    public static func find(_ image: CameraRGBImage, layout: ChartLayout = .colorChecker24,
                            reference: [SIMD3<Double>]) throws(Failure) -> Result {
        guard layout.columns == 6, layout.rows == 4, reference.count == 24 else { throw .notFound(reason: "only the ColorChecker 24 layout is supported") }
        let (dw, dh) = image.displaySize
        let factor = max(1, (max(dw, dh) + workingSize - 1) / workingSize)
        let w = dw / factor, h = dh / factor
        guard w >= 24, h >= 16 else { throw .notFound(reason: "image too small") }
        // 1. Working image, log RGB.
        var log = [SIMD3<Float>](repeating: .zero, count: w * h)
        let inv = 1 / Float(factor * factor)
        for y in 0..<h {
            for x in 0..<w {
                var s = SIMD3<Float>(0, 0, 0)
                for dy in 0..<factor { for dx in 0..<factor { s += image.pixel(displayX: x * factor + dx, displayY: y * factor + dy) } }
                s *= inv
                log[y * w + x] = SIMD3(Foundation.log(max(s.x, 1e-5)), Foundation.log(max(s.y, 1e-5)), Foundation.log(max(s.z, 1e-5)))
            }
        }
        // 2. Region growing.
        var label = [Int32](repeating: -1, count: w * h)
        var regions: [Region] = []
        var stack: [Int] = []
        let tol = Float(tolerance)
        for start in 0..<(w * h) where label[start] < 0 {
            let id = Int32(regions.count)
            let seed = log[start]
            var r = Region()
            label[start] = id
            stack.append(start)
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                let fx = Double(x) + 0.5, fy = Double(y) + 0.5
                r.count += 1; r.sx += fx; r.sy += fy; r.sxx += fx * fx; r.syy += fy * fy; r.sxy += fx * fy
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < w && ny < h {
                    let j = ny * w + nx
                    guard label[j] < 0 else { continue }
                    let d = log[j] - seed
                    if max(d.max(), -d.min()) < tol { label[j] = id; stack.append(j) }
                }
            }
            regions.append(r)
        }
        // 3. Squares.
        let maxArea = w * h / 24
        var squares: [(centre: SIMD2<Double>, side: Double)] = []
        for r in regions where r.count >= 12 && r.count <= maxArea {
            let s = r.sides
            guard s.b > 0, s.a / s.b <= 1.8 else { continue }
            let fill = Double(r.count) / (s.a * s.b)
            guard fill >= 0.75, fill <= 1.2 else { continue }
            squares.append((r.centre, (s.a * s.b).squareRoot()))
        }
        guard squares.count >= minimumPatches else { throw .notFound(reason: "\(squares.count) uniform squares, need \(minimumPatches)") }
        // The lattice search compares every pair: keep it bounded on busy frames (the largest squares stay).
        if squares.count > maximumSquares {
            squares = Array(squares.enumerated().sorted { $0.element.side != $1.element.side ? $0.element.side > $1.element.side : $0.offset < $1.offset }
                .prefix(maximumSquares).sorted { $0.offset < $1.offset }.map(\.element))
        }
        // 4. Lattice: neighbour graph, largest connected group.
        func nearest(_ i: Int) -> Double {
            var best = Double.infinity
            for j in squares.indices where j != i {
                let d = squares[i].centre - squares[j].centre
                best = min(best, (d * d).sum().squareRoot())
            }
            return best
        }
        let pitch = median(squares.indices.map(nearest))
        var adjacency = [[Int]](repeating: [], count: squares.count)
        for i in squares.indices {
            for j in squares.indices where j > i {
                let d = squares[i].centre - squares[j].centre
                let dist = (d * d).sum().squareRoot()
                let ratio = squares[i].side / squares[j].side
                if dist >= 0.7 * pitch, dist <= 1.5 * pitch, ratio < 1.6, ratio > 1 / 1.6 {
                    adjacency[i].append(j); adjacency[j].append(i)
                }
            }
        }
        var group: [Int] = []
        var seen = [Bool](repeating: false, count: squares.count)
        for s in squares.indices where !seen[s] {
            var component: [Int] = [], queue = [s]
            seen[s] = true
            while let i = queue.popLast() {
                component.append(i)
                for j in adjacency[i] where !seen[j] { seen[j] = true; queue.append(j) }
            }
            if component.count > group.count { group = component.sorted() }
        }
        guard group.count >= minimumPatches else { throw .notFound(reason: "largest lattice of squares has \(group.count) patches, need \(minimumPatches)") }
        // Lattice angle from neighbour directions (4θ averages the four directions of a square lattice).
        var acc = SIMD2<Double>(0, 0)
        for i in group {
            for j in adjacency[i] {
                let d = squares[j].centre - squares[i].centre
                let a = atan2(d.y, d.x) * 4
                acc += SIMD2(cos(a), sin(a))
            }
        }
        let theta = atan2(acc.y, acc.x) / 4
        let (c, s) = (cos(-theta), sin(-theta))
        let rotated = group.map { i -> SIMD2<Double> in
            let p = squares[i].centre
            return SIMD2(c * p.x - s * p.y, s * p.x + c * p.y)
        }
        let columnOf = clusters(rotated.map(\.x), gap: pitch / 2)
        let rowOf = clusters(rotated.map(\.y), gap: pitch / 2)
        let columns = (columnOf.max() ?? 0) + 1, rows = (rowOf.max() ?? 0) + 1
        guard (columns == 6 && rows == 4) || (columns == 4 && rows == 6) else {
            throw .notFound(reason: "the squares form a \(columns)×\(rows) lattice, not 6×4")
        }
        // 5. The four turns: lattice (column, row) → chart patch index.
        let found = group.indices.map { k in (col: columnOf[k], row: rowOf[k], centre: squares[group[k]].centre * Double(factor)) }
        var turns: [(Int, Int) -> Int] = []
        if columns == 6 {
            turns = [{ col, row in row * 6 + col }, { col, row in (3 - row) * 6 + (5 - col) }]
        } else {
            // Chart turned a quarter clockwise (its rows run down the image, row 1 on the right) or anticlockwise.
            turns = [{ col, row in (3 - col) * 6 + row }, { col, row in col * 6 + (5 - row) }]
        }
        var best: Result?
        for turn in turns {
            let from = found.map { layout.centre(turn($0.col, $0.row)) }
            let to = found.map(\.centre)
            guard let hom = Homography.fit(from: from, to: to) else { continue }
            let corners = [SIMD2(0.0, 0.0), SIMD2(1.0, 0.0), SIMD2(1.0, 1.0), SIMD2(0.0, 1.0)].compactMap(hom.apply)
            guard corners.count == 4, let samples = try? PatchSampler.sample(image, corners: corners, layout: layout) else { continue }
            let residual = colourResidual(samples.map(\.mean), reference)
            if best == nil || residual < best!.residual {
                best = Result(corners: corners, patchesFound: found.count, residual: residual)
            }
        }
        guard let best else { throw .notFound(reason: "the lattice's corners fall outside the image") }
        // theta in the rotated frame is only used for clustering; the homography carries the geometry.
        return best
    }

    /// Groups sorted-by-value positions into clusters separated by more than `gap`; returns each
    /// value's cluster index (0 = smallest values).
    static func clusters(_ values: [Double], gap: Double) -> [Int] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var out = [Int](repeating: 0, count: values.count)
        var cluster = 0
        for (k, i) in order.enumerated() {
            if k > 0, values[i] - values[order[k - 1]] > gap { cluster += 1 }
            out[i] = cluster
        }
        return out
    }

    /// Σ|M·rgb − xyz|² / Σ|xyz|² for the least-squares 3 × 3 M (rows solved independently).
    static func colourResidual(_ rgb: [SIMD3<Double>], _ xyz: [SIMD3<Double>]) -> Double {
        var a = Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0])
        for v in rgb { for i in 0..<3 { for j in 0..<3 { a[i, j] += v[i] * v[j] } } }
        guard let ainv = a.inverse else { return .infinity }
        var residual = 0.0, total = 0.0
        for channel in 0..<3 {
            var b = SIMD3<Double>(0, 0, 0)
            for (v, t) in zip(rgb, xyz) { b += v * t[channel] }
            let m = ainv * b
            for (v, t) in zip(rgb, xyz) { let e = (m * v).sum() - t[channel]; residual += e * e; total += t[channel] * t[channel] }
        }
        return total > 0 ? residual / total : .infinity
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
