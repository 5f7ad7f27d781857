/// Helpers shared by the demosaic kernels: plane selection by CFA colour, the first column of a
/// given parity, and the simple bilinear fill used for the band (narrower than the kernel's halo)
/// that a kernel cannot compute exactly.
enum DemosaicBorder {
    /// The output plane holding colour `c`.
    @inline(__always)
    static func plane(_ c: CFAColor, _ red: UnsafeMutablePointer<Float>, _ green: UnsafeMutablePointer<Float>,
                      _ blue: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<Float> {
        switch c {
        case .red: return red
        case .green: return green
        case .blue: return blue
        }
    }

    /// The first x ≥ `start` with `x & 1 == parity`.
    @inline(__always)
    static func firstColumn(_ start: Int, parity: Int) -> Int { start + ((parity - start) & 1) }

    /// Fills every pixel closer than `inset` to a region edge: its own colour from the mosaic,
    /// each other colour as the mean of that colour's samples in the 3×3 neighbourhood clipped
    /// to the region (every clipped 3×3 window of a Bayer mosaic at least 2×2 holds all three).
    /// Pixels whose window is whole take a direct path (the same sums in the same order).
    static func fill(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern, inset: Int,
                     red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                     blue: UnsafeMutablePointer<Float>) {
        let band = min(inset, (max(width, height) + 1) / 2)
        let colors = (cfa.color(x: 0, y: 0), cfa.color(x: 1, y: 0), cfa.color(x: 0, y: 1), cfa.color(x: 1, y: 1))
        @inline(__always) func color(_ x: Int, _ y: Int) -> CFAColor {
            switch (y & 1) << 1 | (x & 1) {
            case 0: return colors.0
            case 1: return colors.1
            case 2: return colors.2
            default: return colors.3
            }
        }
        let w = width
        for y in 0..<height {
            let edgeRow = y < band || y >= height - band
            let innerRow = y > 0 && y < height - 1
            var x = 0
            while x < width {
                if !edgeRow && x == band && width - band > band { x = width - band; continue }
                let i = y * w + x
                let site = color(x, y)
                if innerRow && x > 0 && x < width - 1 {
                    let n = mosaic[i - w], s = mosaic[i + w], we = mosaic[i - 1], e = mosaic[i + 1]
                    if site == .green {
                        let across = (we + e) / 2, along = (n + s) / 2
                        green[i] = mosaic[i]
                        plane(color(x + 1, y), red, green, blue)[i] = across
                        plane(color(x, y + 1), red, green, blue)[i] = along
                    } else {
                        let cross = (((n + we) + e) + s) / 4
                        let diagonal = (((mosaic[i - w - 1] + mosaic[i - w + 1]) + mosaic[i + w - 1]) + mosaic[i + w + 1]) / 4
                        green[i] = cross
                        if site == .red { red[i] = mosaic[i]; blue[i] = diagonal } else { blue[i] = mosaic[i]; red[i] = diagonal }
                    }
                    x += 1
                    continue
                }
                var sum: (Float, Float, Float) = (0, 0, 0)
                var count: (Int, Int, Int) = (0, 0, 0)
                for yy in max(0, y - 1)...min(height - 1, y + 1) {
                    for xx in max(0, x - 1)...min(width - 1, x + 1) {
                        let v = mosaic[yy * width + xx]
                        switch color(xx, yy) {
                        case .red: sum.0 += v; count.0 += 1
                        case .green: sum.1 += v; count.1 += 1
                        case .blue: sum.2 += v; count.2 += 1
                        }
                    }
                }
                red[i] = count.0 > 0 ? sum.0 / Float(count.0) : 0
                green[i] = count.1 > 0 ? sum.1 / Float(count.1) : 0
                blue[i] = count.2 > 0 ? sum.2 / Float(count.2) : 0
                plane(site, red, green, blue)[i] = mosaic[i]
                x += 1
            }
        }
    }
}
