/// Fills polygons into an 8-bit plane with area coverage: each plane pixel gets 255 × the fraction
/// of its `samples × samples` sub-pixel grid (sample points at sub-cell centres) inside the polygon,
/// by the even-odd rule, rounded to nearest. Polygon vertices are in plane pixel units (pixel (i, j)
/// spans [i, i+1) × [j, j+1)). Deterministic: pure arithmetic per sample row.
public enum PolygonRaster {
    /// Coverage of `polygon` on a `width × height` plane (`samples` ≥ 1 per side, default 4).
    public static func fill(_ polygon: [(x: Double, y: Double)], width: Int, height: Int, samples: Int = 4) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, width * height))
        fillMax(polygon, into: &out, width: width, height: height, samples: samples)
        return out
    }

    /// Raises each pixel of `out` (a `width × height` plane) to the polygon's coverage where that
    /// is larger: the union of several polygons without a plane per polygon. Only the rows the
    /// polygon spans are touched.
    public static func fillMax(_ polygon: [(x: Double, y: Double)], into out: inout [UInt8], width: Int, height: Int,
                               samples: Int = 4) {
        guard polygon.count >= 3, width > 0, height > 0, samples >= 1, out.count == width * height else { return }
        let ys = polygon.map(\.y), xs = polygon.map(\.x)
        guard let minY = ys.min(), let maxY = ys.max(), let minX = xs.min(), let maxX = xs.max(),
              minY.isFinite, maxY.isFinite, minX.isFinite, maxX.isFinite else { return }
        let row0 = max(0, Int(minY.rounded(.down))), row1 = min(height - 1, Int(maxY.rounded(.down)))
        guard row0 <= row1, maxX >= 0, minX < Double(width) else { return }
        let step = 1 / Double(samples), full = samples * samples
        var counts = [Int](repeating: 0, count: width)
        var crossings: [Double] = []
        for row in row0...row1 {
            for i in counts.indices { counts[i] = 0 }
            for s in 0..<samples {
                let y = Double(row) + (Double(s) + 0.5) * step
                crossings.removeAll(keepingCapacity: true)
                var j = polygon.count - 1
                for i in 0..<polygon.count {
                    let a = polygon[j], b = polygon[i]
                    if (a.y <= y) != (b.y <= y) {
                        crossings.append(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x))
                    }
                    j = i
                }
                crossings.sort()
                var k = 0
                while k + 1 < crossings.count {
                    // Sub-samples at x = col + (t + 0.5) * step inside [x0, x1).
                    let x0 = crossings[k], x1 = crossings[k + 1]
                    k += 2
                    let first = max(0, Int(((x0 / step) - 0.5).rounded(.up)))
                    let last = min(width * samples - 1, Int(((x1 / step) - 0.5).rounded(.up)) - 1)
                    guard first <= last else { continue }
                    for t in first...last { counts[t / samples] += 1 }
                }
            }
            let o = row * width
            for x in 0..<width where counts[x] > 0 {
                let v = UInt8((255 * counts[x] + full / 2) / full)
                if v > out[o + x] { out[o + x] = v }
            }
        }
    }
}
