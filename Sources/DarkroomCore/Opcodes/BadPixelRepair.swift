// FixBadPixelsConstant (id 4) and FixBadPixelsList (id 5), DNG 1.7 §7: bad pixels of a Bayer
// mosaic are replaced by the mean of the nearest good pixels of the same colour.
//
// BayerPhase gives the colour of the top-left pixel (0 red, 1 green in a red row, 2 green in a
// blue row, 3 blue), so a pixel is green when (x + y + phase-parity) is odd, where phases 0 and 3
// put red/blue at even x + y. Neighbours, nearest ring first, the first ring with any good pixel wins:
//   green:     the 4 diagonal neighbours (±1, ±1), then the 4 at (±2, 0), (0, ±2), then wider rings;
//   red/blue:  the 4 at (±2, 0), (0, ±2), then the 4 diagonals (±2, ±2), then wider rings
// (wider rings: every same-colour pixel at Chebyshev distance 3…8). A pixel with no good
// same-colour neighbour within 8 pixels is left unchanged. Repaired pixels are never used as
// neighbours, so the order of repair does not matter.

enum BadPixelRepair {
    static let maxRadius = 8

    /// Neighbour rings for green (index 0) and red/blue (index 1) sites.
    static let rings: [[[(Int, Int)]]] = {
        func wider(_ green: Bool) -> [[(Int, Int)]] {
            (3...maxRadius).map { d in
                var ring: [(Int, Int)] = []
                for dy in -d...d { for dx in -d...d where max(abs(dx), abs(dy)) == d {
                    if green ? (dx + dy) & 1 == 0 : (dx & 1 == 0 && dy & 1 == 0) { ring.append((dx, dy)) }
                } }
                return ring
            }
        }
        let axis2 = [(0, -2), (-2, 0), (2, 0), (0, 2)]
        let diag1 = [(-1, -1), (1, -1), (-1, 1), (1, 1)]
        let diag2 = [(-2, -2), (2, -2), (-2, 2), (2, 2)]
        return [[diag1, axis2] + wider(true), [axis2, diag2] + wider(false)]
    }()

    @inline(__always)
    static func isGreen(x: Int, y: Int, bayerPhase: UInt32) -> Bool {
        let redBlueEven = bayerPhase == 0 || bayerPhase == 3
        return ((x + y) & 1 == 1) == redBlueEven
    }

    /// Repairs the pixels `bad` lists (indices into a 1-plane image); `isBad` must be true exactly
    /// for them. `mean(sum, count)` turns a neighbour sum into the stored sample type.
    static func repair<T>(_ pixels: inout [T], width: Int, height: Int, bayerPhase: UInt32,
                          bad: [Int], isBad: (Int) -> Bool,
                          value: (T) -> Double, mean: (Double, Int) -> T) {
        for index in bad {
            let x = index % width, y = index / width
            let rs = rings[isGreen(x: x, y: y, bayerPhase: bayerPhase) ? 0 : 1]
            for ring in rs {
                var sum = 0.0, n = 0
                for (dx, dy) in ring {
                    let nx = x + dx, ny = y + dy
                    if nx < 0 || ny < 0 || nx >= width || ny >= height { continue }
                    let j = ny * width + nx
                    if isBad(j) { continue }
                    sum += value(pixels[j]); n += 1
                }
                if n > 0 { pixels[index] = mean(sum, n); break }
            }
        }
    }

    /// The bad-pixel mask and list a FixBadPixelsList opcode names (already checked to fit the image).
    static func listed(_ p: DNGOpcode.FixBadPixelsList, width: Int, height: Int) -> (mask: [Bool], bad: [Int]) {
        var mask = [Bool](repeating: false, count: width * height)
        var bad: [Int] = []
        func mark(_ x: Int, _ y: Int) {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            let i = y * width + x
            if !mask[i] { mask[i] = true; bad.append(i) }
        }
        for pt in p.points { mark(Int(pt.column), Int(pt.row)) }
        for r in p.rects {
            for y in Int(r.top)..<min(Int(r.bottom), height) { for x in Int(r.left)..<min(Int(r.right), width) { mark(x, y) } }
        }
        return (mask, bad)
    }
}
