import DarkroomCore
import DarkroomIO
import Dispatch
import Foundation

/// A large, textured synthetic photograph written as a 14-bit DNG (uncompressed unless
/// `compression` says otherwise) by our own `DNGWriter`: the synthetic camera of `SyntheticChart` (its ColorMatrix1/2, per-site black,
/// AsShotNeutral under D65) looking at a scene of gradients, ColorChecker patches, text-like
/// glyph edges, a zone plate, fine lines, clipped highlights and textured foliage, with shot
/// and read noise. Deterministic (hash noise), so every run benchmarks the same bytes.
struct BenchScene: Sendable {
    var name: String
    var width: Int
    var height: Int
    var cfa: CFAPattern
    var bits: Int = 14
    /// How the DNG stores its samples, and its tile size (nil: strips of 64 rows).
    var compression: DNGCompression = .uncompressed
    var tileSize: Int? = nil

    var fileName: String { "\(name).dng" }
    var megapixels: Double { Double(width * height) / 1e6 }

    /// Writes the DNG; returns its path.
    func write(to directory: String) throws -> String {
        let path = URL(fileURLWithPath: directory).appendingPathComponent(fileName).path
        try DNGWriter.write(makeRawImage(), to: path, options: DNGWriteOptions(tileSize: tileSize, compression: compression))
        return path
    }

    func makeRawImage() -> RawImage {
        let chart = SyntheticChart(cfa: cfa, bitsPerSample: bits, illuminant: ColorMath.d65, width: width, height: height)
        var md = chart.metadata
        md.exif.model = "Synthetic Bench Scene"
        md.exif.dateTimeOriginal = "2026:01:01 12:00:00"
        // Linear sRGB scene → normalised camera values (1 = clipping).
        let toCamera = chart.xyzD50ToCamera * OutputColorSpace.srgb.linearRGBToXYZD50
        let mf = toCamera.m.map { Float($0) }
        let blacks = chart.blackLevels.map { Float($0) }
        let white = Float(chart.whiteLevel)
        let patches: [SIMD3<Float>] = SyntheticChart.referenceSRGB8.map { s in
            SIMD3(Float(TransferFunction.srgb.decode(Double(s.x) / 255)),
                  Float(TransferFunction.srgb.decode(Double(s.y) / 255)),
                  Float(TransferFunction.srgb.decode(Double(s.z) / 255)))
        }
        var pixels = [UInt16](repeating: 0, count: width * height)
        let w = width, h = height, cfa = self.cfa
        pixels.withUnsafeMutableBufferPointer { buf in
            let out = SendablePointer(p: buf.baseAddress!)
            let bands = 64
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let y0 = band * h / bands, y1 = (band + 1) * h / bands
                for y in y0..<y1 {
                    for x in 0..<w {
                        let c = Int(cfa.color(x: x, y: y).rawValue)
                        let s = BenchScene.scene(x: x, y: y, width: w, height: h, patches: patches)
                        let v = mf[c * 3] * s.x + mf[c * 3 + 1] * s.y + mf[c * 3 + 2] * s.z
                        let site = (y & 1) << 1 | (x & 1)
                        let black = blacks[site]
                        let range = white - black
                        // Shot noise (σ² ∝ signal) plus read noise, in DN: ~ISO 400-like.
                        let signal = max(v, 0) * range
                        let sigma = (signal * 0.35 + 9).squareRoot()
                        let dn = black + signal + sigma * BenchScene.gauss(x, y, 0x51ED)
                        out.p[y * w + x] = UInt16(min(max(dn.rounded(), 0), white))
                    }
                }
            }
        }
        return RawImage(width: width, height: height, samplesPerPixel: 1, pixels: pixels, metadata: md)
    }

    struct SendablePointer: @unchecked Sendable { let p: UnsafeMutablePointer<UInt16> }

    @inline(__always)
    static func hash(_ x: Int, _ y: Int, _ seed: UInt32) -> UInt32 {
        var h = UInt32(truncatingIfNeeded: x) &* 0x9E37_79B1 ^ UInt32(truncatingIfNeeded: y) &* 0x85EB_CA77 ^ seed
        h = (h ^ (h >> 15)) &* 0x2C1B_3C6D
        h = (h ^ (h >> 12)) &* 0x297A_2D39
        return h ^ (h >> 15)
    }

    /// Approximately standard-normal noise (sum of four uniforms from one hash).
    @inline(__always)
    static func gauss(_ x: Int, _ y: Int, _ seed: UInt32) -> Float {
        let h = hash(x, y, seed)
        let s = Float(h & 0xFF) + Float((h >> 8) & 0xFF) + Float((h >> 16) & 0xFF) + Float(h >> 24)
        return (s - 510) / 147.8
    }

    /// Scene linear sRGB (1.0 = diffuse white at clipping; speculars exceed it).
    @inline(__always)
    static func scene(x: Int, y: Int, width: Int, height: Int, patches: [SIMD3<Float>]) -> SIMD3<Float> {
        let u = Float(x) / Float(width), v = Float(y) / Float(height)
        let band = Int(v * 4)
        let cell = max(16, width / 60)
        switch band {
        case 0:
            // Sky-like gradient with ColorChecker patches in the lower half of the band.
            let cx = x / cell, cy = y / cell
            let inPatch = v > 0.1 && (x % cell) > cell / 8 && (y % cell) > cell / 8
            if inPatch { return patches[(cx + 6 * cy) % 24] * 0.85 }
            return SIMD3(0.15 + 0.5 * u, 0.25 + 0.4 * u * (1 - u), 0.7 - 0.4 * u) * (0.6 + 0.4 * v * 4)
        case 1:
            // Text: 5×7 glyphs on paper, strokes from a hash per glyph.
            let gw = max(6, width / 400), gx = x / gw, gy = y / gw
            let glyphX = gx / 6, glyphY = gy / 9, sx = gx % 6, sy = gy % 9
            var ink = false
            if sx < 5 && sy < 7 {
                let bits = hash(glyphX, glyphY, 0xBEEF)
                let row = sy, col = sx
                ink = (bits >> UInt32((row * 5 + col) % 32)) & 1 == 1 && (row == 0 || row == 6 || col == 0 || col == 4 || (bits >> 31) == 1)
            }
            let paper = SIMD3<Float>(0.78, 0.76, 0.70) * (0.9 + 0.2 * u)
            return ink ? SIMD3(0.03, 0.03, 0.05) : paper
        case 2:
            if u < 0.5 {
                // Zone plate (aliasing stress for the demosaic).
                let dx = Float(x - width / 4), dy = Float(y - height * 5 / 8)
                let r2 = (dx * dx + dy * dy) / Float(width)
                let s = 0.4 + 0.35 * sinf(r2 * 0.9)
                return SIMD3(s, s, s)
            }
            // Fine coloured lines and a clipped specular highlight.
            let dx = Float(x) - Float(width) * 0.8, dy = Float(y) - Float(height) * 0.62
            if dx * dx + dy * dy < Float(width * width) / 900 { return SIMD3(2.5, 2.3, 2.0) }
            let stripe = (x / 3 + y / 7) % 4
            switch stripe {
            case 0: return SIMD3(0.7, 0.1, 0.08)
            case 1: return SIMD3(0.1, 0.5, 0.12)
            case 2: return SIMD3(0.08, 0.12, 0.6)
            default: return SIMD3(0.5, 0.5, 0.45)
            }
        default:
            // Foliage-like texture: value noise at two scales, tinted.
            let a = Float(hash(x / 23, y / 23, 7) & 0xFFFF) / 65535
            let b = Float(hash(x / 5, y / 5, 9) & 0xFFFF) / 65535
            let t = 0.15 + 0.5 * a + 0.2 * b
            return SIMD3(0.25 * t, 0.45 * t, 0.12 * t) + SIMD3(0.02, 0.02, 0.02)
        }
    }
}
