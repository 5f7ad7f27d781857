import DarkroomCore

/// A matte the user supplies as a PNG (`--matte skin=FILE.png`), turned into an auxiliary plane
/// of half the output's width and height (rounded up), like the computed ones.
///
/// Samples → membership: grey as is; RGB as Rec. 709 luma of the code values
/// (`0.2126 R + 0.7152 G + 0.0722 B`); an alpha channel multiplies (`value · alpha / max`), so
/// transparent areas mean "not in the matte". 16-bit files are used at full precision.
/// Resampling is separable: an area average (each plane pixel is the mean of the source area it
/// covers, fractional pixels weighted by coverage) when shrinking, bilinear (pixel centres
/// aligned) when enlarging; results are rounded to nearest. An exact 2× reduction is therefore
/// the plain mean of each 2×2 block.
public enum SuppliedMatte {
    /// Largest accepted relative difference between the matte's and the output's aspect ratios.
    public static let aspectTolerance = 0.02

    /// Reads `path` and fits it to an output of `width × height`.
    public static func load(path: String, kind: MatteKind, width: Int, height: Int) throws(MatteError) -> AuxiliaryPlane {
        guard width > 0, height > 0 else { throw .invalidOutputSize(file: path, width: width, height: height) }
        let png: PNGImage
        let bytes: [UInt8]
        do { bytes = try OptionFile.read(path, kind: .matte) } catch {
            // The signature in PNGReader's words, so every bad header reads the same.
            if case .wrongHeader = error { throw .unreadable(file: path, reason: PNGError.notPNG(file: nil).description.dropPrefix("<PNG data>: ")) }
            throw .unreadable(file: path, reason: error.reason)
        }
        do { png = try PNGReader.read(bytes) } catch {
            throw .unreadable(file: path, reason: error.naming(path).description.dropPrefix(path + ": "))
        }
        let matteAspect = Double(png.width) / Double(png.height), outputAspect = Double(width) / Double(height)
        guard abs(matteAspect / outputAspect - 1) <= aspectTolerance else {
            throw .aspectMismatch(file: path, matteWidth: png.width, matteHeight: png.height,
                                  outputWidth: width, outputHeight: height)
        }
        let (pw, ph) = MatteBuilder.planeSize(width: width, height: height)
        let values = membership(png)
        return AuxiliaryPlane(kind: kind, width: pw, height: ph,
                              pixels: resample(values, width: png.width, height: png.height, toWidth: pw, toHeight: ph))
    }

    /// One value per pixel on a 0…255 scale (Float, so 16-bit precision survives resampling).
    static func membership(_ png: PNGImage) -> [Float] {
        let n = png.width * png.height, c = png.channels
        let sixteen = png.bitsPerSample == 16
        let scale: Float = sixteen ? 255.0 / 65535.0 : 1
        func sample(_ i: Int) -> Float { sixteen ? Float(png.samples16[i]) * scale : Float(png.pixels[i]) }
        var out = [Float](repeating: 0, count: n)
        for p in 0..<n {
            let b = p * c
            switch c {
            case 1: out[p] = sample(b)
            case 2: out[p] = sample(b) * sample(b + 1) / 255
            case 3: out[p] = 0.2126 * sample(b) + 0.7152 * sample(b + 1) + 0.0722 * sample(b + 2)
            default:
                out[p] = (0.2126 * sample(b) + 0.7152 * sample(b + 1) + 0.0722 * sample(b + 2)) * sample(b + 3) / 255
            }
        }
        return out
    }

    /// Source taps and weights for each of `target` output positions along one axis of `source` pixels.
    static func taps(source: Int, target: Int) -> [[(index: Int, weight: Float)]] {
        (0..<target).map { t in
            if source >= target {
                // Area: the source interval [t·s/T, (t+1)·s/T) with fractional end pixels.
                let lo = Double(t) * Double(source) / Double(target)
                let hi = Double(t + 1) * Double(source) / Double(target)
                var taps: [(Int, Float)] = []
                var i = Int(lo.rounded(.down))
                while Double(i) < hi && i < source {
                    let w = min(hi, Double(i + 1)) - max(lo, Double(i))
                    if w > 1e-9 { taps.append((i, Float(w / (hi - lo)))) }
                    i += 1
                }
                return taps
            }
            // Bilinear with centres aligned: source coordinate of the target pixel's centre.
            let x = (Double(t) + 0.5) * Double(source) / Double(target) - 0.5
            let x0 = Int(x.rounded(.down)), f = Float(x - Double(x0))
            let a = min(max(x0, 0), source - 1), b = min(max(x0 + 1, 0), source - 1)
            return a == b ? [(a, Float(1))] : [(a, 1 - f), (b, f)]
        }
    }

    /// Separable resampling of a one-channel Float image to 8 bits.
    static func resample(_ v: [Float], width: Int, height: Int, toWidth tw: Int, toHeight th: Int) -> [UInt8] {
        let tx = taps(source: width, target: tw), ty = taps(source: height, target: th)
        var rows = [Float](repeating: 0, count: tw * height)
        for y in 0..<height {
            for x in 0..<tw {
                var s: Float = 0
                for t in tx[x] { s += v[y * width + t.index] * t.weight }
                rows[y * tw + x] = s
            }
        }
        var out = [UInt8](repeating: 0, count: tw * th)
        for y in 0..<th {
            for x in 0..<tw {
                var s: Float = 0
                for t in ty[y] { s += rows[t.index * tw + x] * t.weight }
                out[y * tw + x] = UInt8(min(255, max(0, s.rounded())))
            }
        }
        return out
    }
}

private extension String {
    func dropPrefix(_ p: String) -> String { hasPrefix(p) ? String(dropFirst(p.count)) : self }
}
