/// Bilinear demosaicing, the reference: each missing colour is the mean of its nearest samples
/// (2 horizontal or vertical neighbours at green sites; 4 cardinal greens or 4 diagonal
/// red/blues at red/blue sites). Linear, so exact on flat fields and linear ramps. Halo 1.
public struct BilinearDemosaic: DemosaicKernel {
    public init() {}
    public var halo: Int { 1 }

    public func demosaic(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        DemosaicBorder.fill(mosaic: mosaic, width: width, height: height, cfa: cfa, inset: 1,
                            red: red, green: green, blue: blue)
        let w = width
        for y in 1..<(height - 1) {
            for parity in 0..<2 {
                let c = cfa.color(x: parity, y: y)
                let row = y * w
                let m = mosaic + row
                var x = DemosaicBorder.firstColumn(1, parity: parity)
                if c == .green {
                    let g = green + row
                    let h = DemosaicBorder.plane(cfa.color(x: parity + 1, y: y), red, green, blue) + row
                    let v = DemosaicBorder.plane(cfa.color(x: parity, y: y + 1), red, green, blue) + row
                    while x < w - 1 {
                        g[x] = m[x]
                        h[x] = (m[x - 1] + m[x + 1]) * 0.5
                        v[x] = (m[x - w] + m[x + w]) * 0.5
                        x += 2
                    }
                } else {
                    let own = DemosaicBorder.plane(c, red, green, blue) + row
                    let other = DemosaicBorder.plane(c == .red ? .blue : .red, red, green, blue) + row
                    let g = green + row
                    while x < w - 1 {
                        own[x] = m[x]
                        g[x] = ((m[x - 1] + m[x + 1]) + (m[x - w] + m[x + w])) * 0.25
                        other[x] = ((m[x - w - 1] + m[x - w + 1]) + (m[x + w - 1] + m[x + w + 1])) * 0.25
                        x += 2
                    }
                }
            }
        }
    }
}
