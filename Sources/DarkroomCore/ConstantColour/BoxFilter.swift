import Dispatch

/// Separable box means over single-channel Float images (row-major), the window clipped at the
/// borders (each output is the mean of the samples inside the image), and an optional weight
/// plane (the mean of `value · weight` over the mean of `weight`; 0 where no weight).
/// Sums run in Double in a fixed order, so the result does not depend on the thread count.
public enum BoxFilter {
    /// The box mean of `plane` (`width × height`) over (2·radius + 1)² windows.
    public static func mean(_ plane: [Float], width: Int, height: Int, radius: Int, threads: Int = 1) -> [Float] {
        let ones = [Float](repeating: 1, count: plane.count)
        return weightedMean(plane, weight: ones, width: width, height: height, radius: radius, threads: threads)
    }

    /// Σ value·weight / Σ weight over each window (0 where Σ weight = 0).
    public static func weightedMean(_ plane: [Float], weight: [Float], width w: Int, height h: Int, radius r: Int,
                                    threads: Int = 1) -> [Float] {
        precondition(plane.count == w * h && weight.count == w * h, "BoxFilter: plane size")
        guard w > 0, h > 0 else { return [] }
        let r = max(0, r)
        var rowsV = [Double](repeating: 0, count: w * h)
        var rowsW = [Double](repeating: 0, count: w * h)
        // Horizontal running sums, one row per task.
        rowsV.withUnsafeMutableBufferPointer { ov in
            rowsW.withUnsafeMutableBufferPointer { ow in
                let pv = RowBuffer(ov.baseAddress!), pw = RowBuffer(ow.baseAddress!)
                parallelRows(h, threads) { y in
                    var sv = 0.0, sw = 0.0
                    let base = y * w
                    for x in 0..<min(r, w) { sv += Double(plane[base + x] * weight[base + x]); sw += Double(weight[base + x]) }
                    for x in 0..<w {
                        let add = x + r, drop = x - r - 1
                        if add < w { sv += Double(plane[base + add] * weight[base + add]); sw += Double(weight[base + add]) }
                        if drop >= 0 { sv -= Double(plane[base + drop] * weight[base + drop]); sw -= Double(weight[base + drop]) }
                        pv.p[base + x] = sv; pw.p[base + x] = sw
                    }
                }
            }
        }
        var out = [Float](repeating: 0, count: w * h)
        let rv = rowsV, rw = rowsW
        // Vertical sums per column, summed directly (no running difference, so no drift).
        out.withUnsafeMutableBufferPointer { o in
            let po = RowBuffer(o.baseAddress!)
            parallelRows(h, threads) { y in
                let y0 = max(0, y - r), y1 = min(h - 1, y + r)
                for x in 0..<w {
                    var sv = 0.0, sw = 0.0
                    for yy in y0...y1 { sv += rv[yy * w + x]; sw += rw[yy * w + x] }
                    po.p[y * w + x] = sw > 1e-12 ? Float(sv / sw) : 0
                }
            }
        }
        return out
    }

    /// Runs `body(y)` for every row in 0..<rows on up to `threads` threads.
    static func parallelRows(_ rows: Int, _ threads: Int, _ body: @Sendable (Int) -> Void) {
        let t = max(1, min(threads, rows))
        if t == 1 { for y in 0..<rows { body(y) }; return }
        let chunk = (rows + t - 1) / t
        DispatchQueue.concurrentPerform(iterations: t) { i in
            let start = i * chunk
            guard start < rows else { return }
            for y in start..<min(rows, start + chunk) { body(y) }
        }
    }
}

/// A buffer's base pointer handed to row-band workers, each of which writes only its own rows (or element)
/// (so sharing it across threads is safe).
struct RowBuffer<T>: @unchecked Sendable {
    let p: UnsafeMutablePointer<T>
    init(_ p: UnsafeMutablePointer<T>) { self.p = p }
}
