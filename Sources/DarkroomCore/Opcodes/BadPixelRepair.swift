// FixBadPixelsConstant (id 4) and FixBadPixelsList (id 5), DNG 1.7 §7, repaired exactly as the
// Adobe DNG SDK 1.7.1 repairs them (dng_bad_pixels.cpp), on 16-bit codes of a one-plane mosaic.
//
// Green sites: the SDK reads BayerPhase as `green ⇔ (row + col + phase + (phase >> 1)) & 1 == 0`,
// which puts green at the top-left for phases 0 and 3 — the opposite of the specification's
// wording (0 red, 1 green in a red row, 2 green in a blue row, 3 blue), and writers disagree
// (Android's DngCreator numbers RGGB 0, the SDK 1). So for a CFA image Darkroom takes green /
// non-green from the CFA pattern itself, which is right under both numberings; only without a
// CFA pattern does it follow the SDK's formula.
//
// FixBadPixelsConstant: every pixel equal to the constant (as a 16-bit code) becomes the rounded
// mean, (Σ + n/2) / n, of its 4 same-colour neighbours that are not the constant themselves —
// the diagonals (±1, ±1) for green, (±2, 0), (0, ±2) for red/blue; neighbours outside the image
// are read through the SDK's period-2 edge repeat (row −1 reads row 1, −2 reads 0); a pixel
// with no such neighbour is left as it is.
//
// FixBadPixelsList (points and rectangles, sorted as the SDK sorts them):
// - an isolated point (no other bad point or rectangle within 2 pixels) at least 2 pixels from
//   every edge: the SDK's directional estimate — four same-colour pairs through the pixel
//   (vertical, two diagonals, horizontal) each with a gradient over a 5×5 window; the pairs whose
//   gradient is at most 1.5 × the smallest are averaged;
// - any other point: the rounded mean of the first ring with a usable neighbour among the
//   diagonals (±1, ±1, green only), (±2, 0)/(0, ±2), (±2, ±2); usable = inside the image, not a
//   listed point, not inside a listed rectangle;
// - an isolated rectangle (no other rectangle within 4 pixels) one pixel wide (tall), at least 2
//   pixels from the left/right (top/bottom) edge: the SDK's directional 9×9 estimate per pixel;
// - other rectangle pixels: the ring estimate with the SDK's eight rings out to (±4, ±4).
// Rectangles read the image with the points already repaired.
// Every estimate reads only pixels that are not (or no longer) bad, so the order of repair
// within each pass does not matter.

enum BadPixelRepair {
    /// Which sites of the mosaic are green.
    struct GreenSites {
        /// Green ⇔ (x + y + parity) is even.
        let parity: Int

        init(bayerPhase: UInt32, cfa: CFAPattern?) {
            if let cfa {
                parity = cfa.color(x: 0, y: 0) == .green ? 0 : 1
            } else {
                parity = Int((bayerPhase &+ (bayerPhase >> 1)) & 1)
            }
        }

        @inline(__always)
        func isGreen(x: Int, y: Int) -> Bool { (x + y + parity) & 1 == 0 }
    }

    /// Index `i` of a line of `n` samples read through the SDK's edge repeat with period 2
    /// (dng_image edge_repeat, SrcRepeat 2×2): −1 → 1, −2 → 0, n → n − 2, n + 1 → n − 1.
    @inline(__always)
    static func repeated(_ i: Int, _ n: Int) -> Int {
        var v = i
        if v < 0 { v += (1 - v) / 2 * 2 }
        if v >= n { v -= ((v - n) / 2 + 1) * 2 }
        return min(max(v, 0), n - 1)
    }

    static let diagonal1 = [(-1, 1), (-1, -1), (1, -1), (1, 1)]       // (dy, dx)
    static let axis2 = [(-2, 0), (2, 0), (0, -2), (0, 2)]
    static let diagonal2 = [(-2, -2), (-2, 2), (2, -2), (2, 2)]
    /// FixClusteredRect's rings, nearest first (the SDK's kOffset table).
    static let rectRings: [[(Int, Int)]] = [
        diagonal1, axis2, diagonal2,
        [(-1, -3), (-3, -1), (1, -3), (3, -1), (-1, 3), (-3, 1), (1, 3), (3, 1)],
        [(-4, 0), (4, 0), (0, -4), (0, 4)],
        [(-3, -3), (-3, 3), (3, -3), (3, 3)],
        [(-2, -4), (-4, -2), (2, -4), (4, -2), (-2, 4), (-4, 2), (2, 4), (4, 2)],
        [(-4, -4), (-4, 4), (4, -4), (4, 4)],
    ]

    /// FixBadPixelsConstant on a one-plane image of 16-bit codes. Returns the indices it changed.
    @discardableResult
    static func fixConstant(_ pixels: inout [UInt16], width: Int, height: Int, constant: UInt32,
                            greens: GreenSites) -> [Int] {
        let bad = UInt16(truncatingIfNeeded: constant)   // the SDK's (uint16) fConstant
        let src = pixels
        var changed: [Int] = []
        for y in 0..<height {
            for x in 0..<width where src[y * width + x] == bad {
                let ring = greens.isGreen(x: x, y: y) ? diagonal1 : axis2
                var total = 0, count = 0
                for (dy, dx) in ring {
                    let v = src[repeated(y + dy, height) * width + repeated(x + dx, width)]
                    if v != bad { total += Int(v); count += 1 }
                }
                if count > 0 {
                    pixels[y * width + x] = UInt16((total + count / 2) / count)
                    changed.append(y * width + x)
                }
            }
        }
        return changed
    }

    /// FixBadPixelsList on a one-plane image of 16-bit codes. Returns the indices it changed.
    @discardableResult
    static func fixList(_ pixels: inout [UInt16], width: Int, height: Int, _ p: DNGOpcode.FixBadPixelsList,
                        greens: GreenSites) -> [Int] {
        let list = SortedList(p)
        let src = pixels
        var changed: [Int] = []
        func ringEstimate(_ from: [UInt16], y: Int, x: Int, rings: [[(Int, Int)]], skipPoint: Int?) -> UInt16? {
            let green = greens.isGreen(x: x, y: y)
            for ring in rings {
                if !green && ring[0].0 & 1 == 1 { continue }   // odd offsets reach other colours
                var total = 0, count = 0
                for (dy, dx) in ring where list.isUsable(y + dy, x + dx, width: width, height: height, except: skipPoint) {
                    total += Int(from[(y + dy) * width + x + dx]); count += 1
                }
                if count > 0 { return UInt16((total + count / 2) / count) }
            }
            return nil
        }
        for (i, pt) in list.points.enumerated() {
            let (y, x) = pt
            guard y >= 0, x >= 0, y < height, x < width else { continue }
            let estimate: UInt16?
            if list.isPointIsolated(i), y >= 2, x >= 2, y < height - 2, x < width - 2 {
                estimate = isolatedEstimate(src, width: width, y: y, x: x, green: greens.isGreen(x: x, y: y))
            } else {
                estimate = ringEstimate(src, y: y, x: x, rings: [diagonal1, axis2, diagonal2], skipPoint: i)
            }
            if let estimate { pixels[y * width + x] = estimate; changed.append(y * width + x) }
        }
        // Rectangles read the image with the points already repaired, and (as the SDK's
        // IsPointValid without an index) do not exclude listed points.
        let afterPoints = pixels
        for (index, r) in list.rects.enumerated() {
            let top = max(r.t, 0), left = max(r.l, 0), bottom = min(r.b, height), right = min(r.r, width)
            guard top < bottom, left < right else { continue }
            let isolated = list.isRectIsolated(index, radius: 4)
            if isolated && r.r == r.l + 1 && r.l >= 2 && r.r <= width - 2 {
                for y in top..<bottom {
                    pixels[y * width + r.l] = singleLineEstimate(afterPoints, width: width, height: height, y: y, x: r.l,
                                                                 green: greens.isGreen(x: r.l, y: y), transposed: false)
                    changed.append(y * width + r.l)
                }
            } else if isolated && r.b == r.t + 1 && r.t >= 2 && r.b <= height - 2 {
                for x in left..<right {
                    pixels[r.t * width + x] = singleLineEstimate(afterPoints, width: width, height: height, y: r.t, x: x,
                                                                 green: greens.isGreen(x: x, y: r.t), transposed: true)
                    changed.append(r.t * width + x)
                }
            } else {
                for y in top..<bottom {
                    for x in left..<right {
                        if let e = ringEstimate(afterPoints, y: y, x: x, rings: rectRings, skipPoint: nil) {
                            pixels[y * width + x] = e; changed.append(y * width + x)
                        }
                    }
                }
            }
        }
        return changed
    }

    /// The listed points and rectangles, sorted by (row, column) and (top, left, bottom, right)
    /// as dng_bad_pixel_list::Sort orders them.
    struct SortedList {
        let points: [(Int, Int)]                       // (row, column)
        let rects: [(t: Int, l: Int, b: Int, r: Int)]

        init(_ p: DNGOpcode.FixBadPixelsList) {
            points = p.points.map { (Int($0.row), Int($0.column)) }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            rects = p.rects.map { (t: Int($0.top), l: Int($0.left), b: Int($0.bottom), r: Int($0.right)) }
                .sorted { ($0.t, $0.l, $0.b, $0.r) < ($1.t, $1.l, $1.b, $1.r) }
        }

        /// No other point within `radius` (Chebyshev) and no rectangle touching the
        /// (2·radius + 1)² square around point `index` (dng_bad_pixel_list::IsPointIsolated).
        func isPointIsolated(_ index: Int, radius: Int = 2) -> Bool {
            let (v, h) = points[index]
            var j = index - 1
            while j >= 0 {
                if points[j].0 < v - radius { break }
                if abs(points[j].1 - h) <= radius { return false }
                j -= 1
            }
            var k = index + 1
            while k < points.count {
                if points[k].0 > v + radius { break }
                if abs(points[k].1 - h) <= radius { return false }
                k += 1
            }
            for r in rects where max(r.t, v - radius) < min(r.b, v + radius + 1) && max(r.l, h - radius) < min(r.r, h + radius + 1) {
                return false
            }
            return true
        }

        /// No other rectangle touches rectangle `index` grown by `radius` (IsRectIsolated).
        func isRectIsolated(_ index: Int, radius: Int) -> Bool {
            let r = rects[index]
            for (n, o) in rects.enumerated() where n != index {
                if max(o.t, r.t - radius) < min(o.b, r.b + radius) && max(o.l, r.l - radius) < min(o.r, r.r + radius) { return false }
            }
            return true
        }

        /// dng_bad_pixel_list::IsPointValid: inside the image, not inside a listed rectangle and,
        /// when repairing point `except`, not a listed point (found by scanning the sorted list
        /// outward from `except`, as the SDK does). Rectangle repairs pass nil: listed points are
        /// then usable (the SDK has repaired them by then).
        func isUsable(_ v: Int, _ h: Int, width: Int, height: Int, except: Int?) -> Bool {
            if v < 0 || h < 0 || v >= height || h >= width { return false }
            if let except {
                var j = except - 1
                while j >= 0, points[j].0 >= v { if points[j] == (v, h) { return false }; j -= 1 }
                var k = except + 1
                while k < points.count, points[k].0 <= v { if points[k] == (v, h) { return false }; k += 1 }
            }
            for r in rects where v >= r.t && h >= r.l && v < r.b && h < r.r { return false }
            return true
        }
    }

    /// dng_opcode_FixBadPixelsList::FixSingleColumn (and, transposed, FixSingleRow): pixel
    /// (x, y) of an isolated one-pixel-wide bad column (row) estimated from seven same-colour
    /// directions over a 9×9 window (greens corrected by the local green "split"), the directions
    /// with gradient ≤ 1.5 × the smallest averaged, the result limited to the range of the nearest
    /// same-colour neighbours. Unsigned 32-bit wrap-around as in the SDK. Reads outside the image go
    /// through the period-2 edge repeat.
    static func singleLineEstimate(_ s: [UInt16], width: Int, height: Int, y: Int, x: Int, green: Bool,
                                   transposed: Bool) -> UInt16 {
        // p(r, c): window row r, column c (0…8) across the bad line, centre (4, 4).
        @inline(__always) func p(_ r: Int, _ c: Int) -> Int {
            let (yy, xx) = transposed ? (y - 4 + c, x - 4 + r) : (y - 4 + r, x - 4 + c)
            return Int(s[repeated(yy, height) * width + repeated(xx, width)])
        }
        var est = [Int](repeating: 0, count: 7), grad = [Int](repeating: 0, count: 7)
        var lower = 0, upper = 0xFFFF
        if green {
            let b03 = p(0, 3)
            let b05 = p(0, 5)
            let g11 = p(1, 1)
            let g13 = p(1, 3)
            let g15 = p(1, 5)
            let g17 = p(1, 7)
            let g22 = p(2, 2)
            let b23 = p(2, 3)
            let b25 = p(2, 5)
            let g26 = p(2, 6)
            let r30 = p(3, 0)
            let g31 = p(3, 1)
            let r32 = p(3, 2)
            let g33 = p(3, 3)
            let g35 = p(3, 5)
            let r36 = p(3, 6)
            let g37 = p(3, 7)
            let r38 = p(3, 8)
            let g40 = p(4, 0)
            let g42 = p(4, 2)
            let b43 = p(4, 3)
            let b45 = p(4, 5)
            let g46 = p(4, 6)
            let g48 = p(4, 8)
            let r50 = p(5, 0)
            let g51 = p(5, 1)
            let r52 = p(5, 2)
            let g53 = p(5, 3)
            let g55 = p(5, 5)
            let r56 = p(5, 6)
            let g57 = p(5, 7)
            let r58 = p(5, 8)
            let g62 = p(6, 2)
            let b63 = p(6, 3)
            let b65 = p(6, 5)
            let g66 = p(6, 6)
            let g71 = p(7, 1)
            let g73 = p(7, 3)
            let g75 = p(7, 5)
            let g77 = p(7, 7)
            let b83 = p(8, 3)
            let b85 = p(8, 5)
            let split = ((g22 + g62 + g26 + g66) * 4 + (g42 + g46) * 8 - (g11 + g13 + g15 + g17) - (g31 + g33 + g35 + g37) * 3 - (g51 + g53 + g55 + g57) * 3 - (g71 + g73 + g75 + g77) + 16) >> 5
            est[0] = g13 + g75 + split * 2
            grad[0] = abs(g13 - g75) + abs(g15 - g46) + abs(g22 - g53) + abs(g35 - g66) + abs(g42 - g73) + abs(b03 - b65) + abs(b23 - b85)
            est[1] = g33 + g55 + split * 2
            grad[1] = abs(g33 - g55) + abs(g22 - g55) + abs(g33 - g66) + abs(g13 - g35) + abs(g53 - g75) + abs(b23 - b45) + abs(b43 - b65)
            est[2] = g31 + g57 + split * 2
            grad[2] = abs(g31 - g57) + abs(g33 - g46) + abs(g35 - g48) + abs(g40 - g53) + abs(g42 - g55) + abs(r30 - r56) + abs(r32 - r58)
            est[3] = g42 + g46
            grad[3] = abs(g42 - g46) * 2 + abs(g33 - g35) + abs(g53 - g55) + abs(b23 - b25) + abs(b43 - b45) + abs(b63 - b65)
            est[4] = g37 + g51 + split * 2
            grad[4] = abs(g37 - g51) + abs(g35 - g42) + abs(g33 - g40) + abs(g48 - g55) + abs(g46 - g53) + abs(r38 - r52) + abs(r36 - r50)
            est[5] = g35 + g53 + split * 2
            grad[5] = abs(g35 - g53) + abs(g26 - g53) + abs(g35 - g62) + abs(g15 - g33) + abs(g55 - g73) + abs(b25 - b43) + abs(b45 - b63)
            est[6] = g15 + g73 + split * 2
            grad[6] = abs(g15 - g73) + abs(g13 - g42) + abs(g26 - g55) + abs(g33 - g62) + abs(g46 - g75) + abs(b05 - b63) + abs(b25 - b83)
            lower = min(min(g33, g35), min(g53, g55))
            upper = max(max(g33, g35), max(g53, g55))
            lower = min(max(lower + split, 0), 65535)
            upper = min(max(upper + split, 0), 65535)
        } else {
            let b02 = p(0, 2)
            let g03 = p(0, 3)
            let g05 = p(0, 5)
            let b06 = p(0, 6)
            let r13 = p(1, 3)
            let r15 = p(1, 5)
            let b20 = p(2, 0)
            let b22 = p(2, 2)
            let g23 = p(2, 3)
            let g25 = p(2, 5)
            let b26 = p(2, 6)
            let b28 = p(2, 8)
            let r31 = p(3, 1)
            let g32 = p(3, 2)
            let r33 = p(3, 3)
            let r35 = p(3, 5)
            let g36 = p(3, 6)
            let r37 = p(3, 7)
            let g41 = p(4, 1)
            let b42 = p(4, 2)
            let g43 = p(4, 3)
            let g45 = p(4, 5)
            let b46 = p(4, 6)
            let g47 = p(4, 7)
            let r51 = p(5, 1)
            let g52 = p(5, 2)
            let r53 = p(5, 3)
            let r55 = p(5, 5)
            let g56 = p(5, 6)
            let r57 = p(5, 7)
            let b60 = p(6, 0)
            let b62 = p(6, 2)
            let g63 = p(6, 3)
            let g65 = p(6, 5)
            let b66 = p(6, 6)
            let b68 = p(6, 8)
            let r73 = p(7, 3)
            let r75 = p(7, 5)
            let b82 = p(8, 2)
            let g83 = p(8, 3)
            let g85 = p(8, 5)
            let b86 = p(8, 6)
            est[0] = b02 + b86
            grad[0] = abs(b02 - b86) + abs(r13 - r55) + abs(r33 - r75) + abs(g03 - g45) + abs(g23 - g65) + abs(g43 - g85)
            est[1] = b22 + b66
            grad[1] = abs(b22 - b66) + abs(r13 - r35) + abs(r33 - r55) + abs(r53 - r75) + abs(g23 - g45) + abs(g43 - g65)
            est[2] = b20 + b68
            grad[2] = abs(b20 - b68) + abs(r31 - r55) + abs(r33 - r57) + abs(g23 - g47) + abs(g32 - g56) + abs(g41 - g65)
            est[3] = b42 + b46
            grad[3] = abs(b42 - b46) + abs(r33 - r35) + abs(r53 - r55) + abs(g32 - g36) + abs(g43 - g43) + abs(g52 - g56)
            est[4] = b28 + b60
            grad[4] = abs(b28 - b60) + abs(r37 - r53) + abs(r35 - r51) + abs(g25 - g41) + abs(g36 - g52) + abs(g47 - g63)
            est[5] = b26 + b62
            grad[5] = abs(b26 - b62) + abs(r15 - r33) + abs(r35 - r53) + abs(r55 - r73) + abs(g25 - g43) + abs(g45 - g63)
            est[6] = b06 + b82
            grad[6] = abs(b06 - b82) + abs(r15 - r53) + abs(r35 - r73) + abs(g05 - g43) + abs(g25 - g63) + abs(g45 - g83)
            lower = min(b42, b46)
            upper = max(b42, b46)
        }
        let limit = UInt32(truncatingIfNeeded: (grad.min() ?? 0) * 3) >> 1
        var total: UInt32 = 0, count: UInt32 = 0
        for k in 0..<7 where UInt32(truncatingIfNeeded: grad[k]) <= limit {
            total &+= UInt32(truncatingIfNeeded: est[k]); count += 2
        }
        count = max(count, 1)
        let estimate = (total &+ (count >> 1)) / count
        let lo = UInt32(truncatingIfNeeded: lower), hi = UInt32(truncatingIfNeeded: upper)
        return UInt16(truncatingIfNeeded: max(lo, min(estimate, hi)))   // Pin_uint32(lower, estimate, upper)
    }

    /// dng_opcode_FixBadPixelsList::FixIsolatedPixel: four same-colour pairs through (x, y), each
    /// with a gradient over the 5×5 window; pairs with gradient ≤ 1.5 × the smallest are averaged.
    static func isolatedEstimate(_ s: [UInt16], width: Int, y: Int, x: Int, green: Bool) -> UInt16 {
        // p(r, c): window row r, column c (0…4), centre (2, 2).
        @inline(__always) func p(_ r: Int, _ c: Int) -> Int { Int(s[(y - 2 + r) * width + (x - 2 + c)]) }
        let est: [Int], grad: [Int]
        if green {
            let b01 = p(0, 1), g02 = p(0, 2), b03 = p(0, 3)
            let r10 = p(1, 0), g11 = p(1, 1), r12 = p(1, 2), g13 = p(1, 3), r14 = p(1, 4)
            let g20 = p(2, 0), b21 = p(2, 1), b23 = p(2, 3), g24 = p(2, 4)
            let r30 = p(3, 0), g31 = p(3, 1), r32 = p(3, 2), g33 = p(3, 3), r34 = p(3, 4)
            let b41 = p(4, 1), g42 = p(4, 2), b43 = p(4, 3)
            est = [g02 + g42, g11 + g33, g20 + g24, g13 + g31]
            let g0 = abs(g02 - g42) + abs(g11 - g31) + abs(g13 - g33) + abs(b01 - b21) + abs(b03 - b23) + abs(b21 - b41) + abs(b23 - b43)
            let g1 = abs(g11 - g33) + abs(g02 - g24) + abs(g20 - g42) + abs(b01 - b23) + abs(r10 - r32) + abs(r12 - r34) + abs(b21 - b43)
            let g2 = abs(g20 - g24) + abs(g11 - g13) + abs(g31 - g33) + abs(r10 - r12) + abs(r30 - r32) + abs(r12 - r14) + abs(r32 - r34)
            let g3 = abs(g13 - g31) + abs(g02 - g20) + abs(g24 - g42) + abs(b03 - b21) + abs(r14 - r32) + abs(r12 - r30) + abs(b23 - b41)
            grad = [g0, g1, g2, g3]
        } else {
            let b00 = p(0, 0), g01 = p(0, 1), b02 = p(0, 2), g03 = p(0, 3), b04 = p(0, 4)
            let g10 = p(1, 0), r11 = p(1, 1), g12 = p(1, 2), r13 = p(1, 3), g14 = p(1, 4)
            let b20 = p(2, 0), g21 = p(2, 1), g23 = p(2, 3), b24 = p(2, 4)
            let g30 = p(3, 0), r31 = p(3, 1), g32 = p(3, 2), r33 = p(3, 3), g34 = p(3, 4)
            let b40 = p(4, 0), g41 = p(4, 1), b42 = p(4, 2), g43 = p(4, 3), b44 = p(4, 4)
            est = [b02 + b42, b00 + b44, b20 + b24, b04 + b40]
            let g0 = abs(b02 - b42) + abs(g12 - g32) + abs(g01 - g21) + abs(g21 - g41) + abs(g03 - g23) + abs(g23 - g43) + abs(r11 - r31) + abs(r13 - r33)
            let g1 = abs(b00 - b44) + abs(r11 - r33) + abs(g01 - g23) + abs(g10 - g32) + abs(g12 - g34) + abs(g21 - g43) + abs(b02 - b24) + abs(b20 - b42)
            let g2 = abs(b20 - b24) + abs(g21 - g23) + abs(g10 - g12) + abs(g12 - g14) + abs(g30 - g32) + abs(g32 - g34) + abs(r11 - r13) + abs(r31 - r33)
            let g3 = abs(b04 - b40) + abs(r13 - r31) + abs(g03 - g21) + abs(g14 - g32) + abs(g12 - g30) + abs(g23 - g41) + abs(b02 - b20) + abs(b24 - b42)
            grad = [g0, g1, g2, g3]
        }
        let limit = (min(min(grad[0], grad[1]), min(grad[2], grad[3])) * 3) >> 1
        var total = 0, count = 0
        for k in 0..<4 where grad[k] <= limit { total += est[k]; count += 2 }
        count = max(count, 1)
        return UInt16(clamping: (total + count / 2) / count)
    }
}
