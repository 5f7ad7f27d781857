import DarkroomIO
import Foundation

/// The scikit-image 0.24.0 colour PNGs of the saturated set (`make demosaic-sets` extracts them).
let skimagePNGs = ["astronaut", "chelsea", "coffee", "color", "ihc", "logo", "motorcycle_left", "motorcycle_right"]

/// Reads the scikit-image PNGs from `dir` as 8-bit RGB: RGBA (logo) is composited over white,
/// `round((c·a + 255·(255 − a)) / 255)`; grey files are refused. Returns nil (after printing
/// the file and reason) when one is missing or unreadable.
func loadSkimage(_ dir: String) -> [KodakImage]? {
    var out: [KodakImage] = []
    for name in skimagePNGs {
        let path = dir + "/" + name + ".png"
        let img: PNGImage
        do { img = try PNGReader.read(contentsOf: path) } catch {
            print("bench-demosaic: \(error) (run `make demosaic-sets`)")
            return nil
        }
        guard img.channels >= 3 else { print("bench-demosaic: \(path): \(img.channels) channel(s), need RGB"); return nil }
        var rgb = [UInt8](repeating: 0, count: img.width * img.height * 3)
        for i in 0..<(img.width * img.height) {
            let a = img.channels == 4 ? Int(img.pixels[i * 4 + 3]) : 255
            for c in 0..<3 {
                let v = Int(img.pixels[i * img.channels + c])
                rgb[i * 3 + c] = UInt8((v * a + 255 * (255 - a) + 127) / 255)
            }
        }
        let flat = PNGImage(width: img.width, height: img.height, channels: 3, pixels: rgb)
        out.append(KodakImage(name: name, image: flat, floats: rgb.map { Float($0) / 255 }))
    }
    return out
}

/// Deterministic saturated test scenes of our own, 512×512, each pixel the mean of a 4×4 grid of
/// point samples (so edges are anti-aliased like an optical image), quantised to 8 bits:
/// - `synth-cells`: 48 Voronoi cells (hashed seed points), each one flat highly saturated colour
///   (HSV hue hashed, S 0.85–1, V 0.55–1): sharp edges between unrelated saturated hues.
/// - `synth-bands`: stripes at 30° whose period grows from 8 px (top; twice the period at which the
///   red and blue samples alias) to 40 px (bottom), alternating
///   a fully saturated hue (varying along x) with its complement: chroma edges at all scales.
/// - `synth-rings`: R, G and B each a centred chirp `0.5 + 0.45·sin(k·r²)` with different `k`
///   (1.0, 1.3, 0.7 × 10⁻³ px⁻²; local frequency k·r/π ≤ 0.15 cycles/px in the corners): uncorrelated channels.
enum SaturatedScenes {
    static let size = 512

    static func all() -> [KodakImage] {
        [render("synth-cells", cells()), render("synth-bands", bands), render("synth-rings", rings)]
    }

    static func render(_ name: String, _ f: (Double, Double) -> (Double, Double, Double)) -> KodakImage {
        let n = size, ss = 4
        var px = [UInt8](repeating: 0, count: n * n * 3)
        for y in 0..<n { for x in 0..<n {
            var acc = (0.0, 0.0, 0.0)
            for sy in 0..<ss { for sx in 0..<ss {
                let v = f(Double(x) + (Double(sx) + 0.5) / Double(ss), Double(y) + (Double(sy) + 0.5) / Double(ss))
                acc.0 += v.0; acc.1 += v.1; acc.2 += v.2
            } }
            let k = Double(ss * ss)
            for (c, v) in [acc.0 / k, acc.1 / k, acc.2 / k].enumerated() {
                px[(y * n + x) * 3 + c] = UInt8((min(max(v, 0), 1) * 255).rounded())
            }
        } }
        return KodakImage(name: name, image: PNGImage(width: n, height: n, channels: 3, pixels: px),
                          floats: px.map { Float($0) / 255 })
    }

    /// HSV (all in [0, 1]) to RGB.
    static func hsv(_ h: Double, _ s: Double, _ v: Double) -> (Double, Double, Double) {
        let h6 = (h - h.rounded(.down)) * 6, i = Int(h6) % 6, f = h6 - h6.rounded(.down)
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        switch i {
        case 0: return (v, t, p)
        case 1: return (q, v, p)
        case 2: return (p, v, t)
        case 3: return (p, q, v)
        case 4: return (t, p, v)
        default: return (v, p, q)
        }
    }

    /// SplitMix64 of `i`, as a Double in [0, 1).
    static func hash(_ i: UInt64) -> Double {
        var z = i &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    static func cells() -> (Double, Double) -> (Double, Double, Double) {
        let count = 48, n = Double(size)
        let seeds = (0..<count).map { i -> (Double, Double, (Double, Double, Double)) in
            let b = UInt64(i) * 5
            return (hash(b) * n, hash(b + 1) * n, hsv(hash(b + 2), 0.85 + 0.15 * hash(b + 3), 0.55 + 0.45 * hash(b + 4)))
        }
        return { x, y in
            var best = Double.infinity, colour = (0.0, 0.0, 0.0)
            for s in seeds {
                let d = (x - s.0) * (x - s.0) + (y - s.1) * (y - s.1)
                if d < best { best = d; colour = s.2 }
            }
            return colour
        }
    }

    static func bands(_ x: Double, _ y: Double) -> (Double, Double, Double) {
        let n = Double(size), t = x * cos(Double.pi / 6) + y * sin(Double.pi / 6)
        let period = 8 + 32 * y / n, hue = x / n
        return sin(2 * Double.pi * t / period) >= 0 ? hsv(hue, 1, 1) : hsv(hue + 0.5, 1, 0.8)
    }

    static func rings(_ x: Double, _ y: Double) -> (Double, Double, Double) {
        let c = Double(size) / 2, r2 = (x - c) * (x - c) + (y - c) * (y - c)
        return (0.5 + 0.45 * sin(1.0e-3 * r2), 0.5 + 0.45 * sin(1.3e-3 * r2 + 1), 0.5 + 0.45 * sin(0.7e-3 * r2 + 2))
    }
}

/// Mean chroma of an image in percent: the mean over pixels of (max − min of R, G, B) / 255.
func meanChroma(_ k: KodakImage) -> Double {
    let p = k.image.pixels, ch = k.image.channels
    var sum = 0
    for i in 0..<(k.image.width * k.image.height) {
        let r = p[i * ch], g = p[i * ch + 1], b = p[i * ch + 2]
        sum += Int(max(r, g, b)) - Int(min(r, g, b))
    }
    return 100 * Double(sum) / Double(k.image.width * k.image.height * 255)
}
