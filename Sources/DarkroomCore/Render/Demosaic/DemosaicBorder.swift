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
    /// Runs of pixels whose window is whole take an eight-lane path (the same sums in the same
    /// order, so the same values); the outermost ring takes the general one.
    @inline(never)
    /// For a kernel whose row loops need `2 · halo + 2` pixels a side: when the region is smaller,
    /// fills all of it by the border rule (`fill` with the whole region as border) and returns true;
    /// otherwise leaves the planes alone and returns false.
    static func fillIfTooSmall(halo: Int, mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                               red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                               blue: UnsafeMutablePointer<Float>) -> Bool {
        guard width < 2 * halo + 2 || height < 2 * halo + 2 else { return false }
        fill(mosaic: mosaic, width: width, height: height, cfa: cfa, inset: max(width, height), red: red, green: green, blue: blue)
        return true
    }

    static func fill(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern, inset: Int,
                     red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                     blue: UnsafeMutablePointer<Float>) {
        let band = min(inset, (max(width, height) + 1) / 2)
        for y in 0..<height {
            if y == 0 || y == height - 1 || width < 3 {
                for x in 0..<width { fillClipped(mosaic, width, height, cfa, x, y, red, green, blue) }
                continue
            }
            fillClipped(mosaic, width, height, cfa, 0, y, red, green, blue)
            fillClipped(mosaic, width, height, cfa, width - 1, y, red, green, blue)
            if y < band || y >= height - band || width - band <= band {
                fillWhole(mosaic, width, cfa, y, 1, width - 1, red, green, blue)
            } else {
                fillWhole(mosaic, width, cfa, y, 1, band, red, green, blue)
                fillWhole(mosaic, width, cfa, y, width - band, width - 1, red, green, blue)
            }
        }
    }

    /// Columns `lo..<hi` of row `y`, all with whole 3×3 windows: at green sites the mean of the
    /// two horizontal and the two vertical neighbours, at red/blue sites the mean of the four
    /// cardinal (green) and four diagonal (other colour) neighbours.
    private static func fillWhole(_ m: UnsafePointer<Float>, _ w: Int, _ cfa: CFAPattern, _ y: Int, _ lo: Int, _ hi: Int,
                                  _ red: UnsafeMutablePointer<Float>, _ green: UnsafeMutablePointer<Float>,
                                  _ blue: UnsafeMutablePointer<Float>) {
        guard hi > lo else { return }
        let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
        let rowColor = cfa.color(x: 1 - greenParity, y: y)          // red or blue
        let own = plane(rowColor, red, green, blue) + y * w
        let other = plane(rowColor == .red ? .blue : .red, red, green, blue) + y * w
        let g = green + y * w, c = m + y * w, n = c - w, s = c + w
        if hi - lo >= 8 {
            typealias V = DemosaicVector.V
            for x0 in stride(from: lo, to: hi, by: 8) {
                let x = min(x0, hi - 8)
                let isGreen = DemosaicVector.parityLanes(x, greenParity)
                let mc = DemosaicVector.load(c + x), we = DemosaicVector.load(c + x - 1), e = DemosaicVector.load(c + x + 1)
                let nc = DemosaicVector.load(n + x), sc = DemosaicVector.load(s + x)
                let across = (we + e) * 0.5, along = (nc + sc) * 0.5
                let cross = (((nc + we) + e) + sc) * 0.25
                let diagonal = (((DemosaicVector.load(n + x - 1) + DemosaicVector.load(n + x + 1))
                                 + DemosaicVector.load(s + x - 1)) + DemosaicVector.load(s + x + 1)) * 0.25
                DemosaicVector.store(DemosaicVector.blend(isGreen, mc, cross), g + x)
                DemosaicVector.store(DemosaicVector.blend(isGreen, across, mc), own + x)
                DemosaicVector.store(DemosaicVector.blend(isGreen, along, diagonal), other + x)
            }
            return
        }
        for x in lo..<hi {
            if (x & 1) == greenParity {
                g[x] = c[x]; own[x] = (c[x - 1] + c[x + 1]) * 0.5; other[x] = (n[x] + s[x]) * 0.5
            } else {
                g[x] = (((n[x] + c[x - 1]) + c[x + 1]) + s[x]) * 0.25
                own[x] = c[x]
                other[x] = (((n[x - 1] + n[x + 1]) + s[x - 1]) + s[x + 1]) * 0.25
            }
        }
    }

    /// One pixel, its 3×3 window clipped to the region.
    private static func fillClipped(_ mosaic: UnsafePointer<Float>, _ width: Int, _ height: Int, _ cfa: CFAPattern,
                                    _ x: Int, _ y: Int, _ red: UnsafeMutablePointer<Float>,
                                    _ green: UnsafeMutablePointer<Float>, _ blue: UnsafeMutablePointer<Float>) {
        var sum: (Float, Float, Float) = (0, 0, 0)
        var count: (Int, Int, Int) = (0, 0, 0)
        for yy in max(0, y - 1)...min(height - 1, y + 1) {
            for xx in max(0, x - 1)...min(width - 1, x + 1) {
                let v = mosaic[yy * width + xx]
                switch cfa.color(x: xx, y: yy) {
                case .red: sum.0 += v; count.0 += 1
                case .green: sum.1 += v; count.1 += 1
                case .blue: sum.2 += v; count.2 += 1
                }
            }
        }
        let i = y * width + x
        red[i] = count.0 > 0 ? sum.0 / Float(count.0) : 0
        green[i] = count.1 > 0 ? sum.1 / Float(count.1) : 0
        blue[i] = count.2 > 0 ? sum.2 / Float(count.2) : 0
        plane(cfa.color(x: x, y: y), red, green, blue)[i] = mosaic[i]
    }
}
