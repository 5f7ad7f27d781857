/// Malvar, He & Cutler 2004, "High-quality linear interpolation for demosaicing of Bayer-patterned
/// color images" (ICASSP): bilinear interpolation plus a gain-weighted Laplacian of the colour
/// present at the site (the paper's 5×5 filters, gains α = 1/2, β = 5/8, γ = 3/4). Written as
/// bilinear + correction so that flat fields come out exact. Linear. Halo 2.
public struct MalvarDemosaic: DemosaicKernel {
    public init() {}
    public var halo: Int { 2 }

    public func demosaic(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        DemosaicBorder.fill(mosaic: mosaic, width: width, height: height, cfa: cfa, inset: 2,
                            red: red, green: green, blue: blue)
        let w = width, w2 = 2 * width
        for y in 2..<(height - 2) {
            for parity in 0..<2 {
                let c = cfa.color(x: parity, y: y)
                let row = y * w
                let m = mosaic + row
                var x = DemosaicBorder.firstColumn(2, parity: parity)
                if c == .green {
                    let g = green + row
                    let h = DemosaicBorder.plane(cfa.color(x: parity + 1, y: y), red, green, blue) + row
                    let v = DemosaicBorder.plane(cfa.color(x: parity, y: y + 1), red, green, blue) + row
                    while x < w - 2 {
                        let centre = m[x]
                        let diagonal = (m[x - w - 1] + m[x - w + 1]) + (m[x + w - 1] + m[x + w + 1])
                        let far2H = m[x - 2] + m[x + 2], far2V = m[x - w2] + m[x + w2]
                        // Filter "R at G in an R row": [½ vertical, −1 diagonals, −1 ±2 horizontal, 5 centre]/8
                        // = horizontal mean + ((4c − diagonals) + (c + ½ far2V − far2H)) / 8.
                        let common = centre * 4 - diagonal
                        g[x] = centre
                        h[x] = (m[x - 1] + m[x + 1]) * 0.5 + (common + ((centre + far2V * 0.5) - far2H)) * 0.125
                        v[x] = (m[x - w] + m[x + w]) * 0.5 + (common + ((centre + far2H * 0.5) - far2V)) * 0.125
                        x += 2
                    }
                } else {
                    let own = DemosaicBorder.plane(c, red, green, blue) + row
                    let other = DemosaicBorder.plane(c == .red ? .blue : .red, red, green, blue) + row
                    let g = green + row
                    while x < w - 2 {
                        let centre = m[x]
                        let far2 = (m[x - 2] + m[x + 2]) + (m[x - w2] + m[x + w2])
                        own[x] = centre
                        // G at R/B: cardinal mean + (4c − far2) / 8.
                        g[x] = ((m[x - 1] + m[x + 1]) + (m[x - w] + m[x + w])) * 0.25 + (centre * 4 - far2) * 0.125
                        // B at R / R at B: diagonal mean + (6c − 3/2 far2) / 8.
                        other[x] = ((m[x - w - 1] + m[x - w + 1]) + (m[x + w - 1] + m[x + w + 1])) * 0.25
                            + (centre * 6 - far2 * 1.5) * 0.125
                        x += 2
                    }
                }
            }
        }
    }
}
