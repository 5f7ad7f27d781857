import DarkroomCore
import DarkroomNeural
import Foundation

/// The neural mattes of `--mattes portrait,skin,teeth,lips` for a developed image: DarkroomNeural's
/// `SemanticMattes` (MediaPipe 0.10.21's person, BlazeFace and Face Mesh models through XNNPACK) on
/// the 8-bit output, turned into planes of `MatteBuilder.planeSize` by `SemanticPlanes`.
///
/// - `portrait` is written only when a face is found (a statue or landscape gets none); `skin`,
///   `teeth` and `lips` are written (all zero when there is no face, as Apple writes empty mattes).
/// - `skin` = the `skin-color` likelihood inside the portrait matte, minus eyes, lips and mouth.
/// - The models see the full-resolution render (8-bit), the planes its plane-size average; a
///   float render (`--format exr`) has no display encoding and is refused.
/// The models are loaded once per process (single-threaded XNNPACK: the same bytes for any
/// `--threads`), and one image is analysed at a time.
public enum SemanticMatteBuilder {
    /// Why a semantic matte cannot be computed (one line naming the cause).
    public enum Failure: Error, CustomStringConvertible {
        case models(NeuralError)
        case floatRender

        public var description: String {
            switch self {
            case .models(let e): return "semantic mattes: \(e.description)"
            case .floatRender: return "semantic mattes need a display-encoded render (not --format exr / --bit-depth 32)"
            }
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cached: SemanticMatteModels?

    /// The models, loaded on first use (throws with "run `make models`" when a file is missing).
    static func models() throws(Failure) -> SemanticMatteModels {
        if let m = cached { return m }
        do {
            let m = try SemanticMatteModels.load(threads: 1)
            cached = m
            return m
        } catch { throw .models(error) }
    }

    /// The requested semantic planes (kinds in `MatteKind.semanticKinds`, request order, duplicates
    /// skipped); `[]` when none is requested.
    public static func planes(_ kinds: [MatteKind], image: RenderedImage, space: OutputColorSpace) throws(Failure) -> [AuxiliaryPlane] {
        var wanted: [MatteKind] = []
        for k in kinds where MatteKind.semanticKinds.contains(k) && !wanted.contains(k) { wanted.append(k) }
        guard !wanted.isEmpty else { return [] }
        let (w, h) = MatteBuilder.planeSize(width: image.width, height: image.height)
        // The models see the full-resolution render, as MediaPipe's graphs would (the detectors are
        // sensitive to how the frame is resampled); the planes are made from its plane-size average.
        guard let full = fullImage(image), let small = inputImage(image, width: w, height: h) else { throw .floatRender }
        lock.lock(); defer { lock.unlock() }
        let m = try models()
        let analysis: SemanticAnalysis
        do { analysis = try SemanticMattes.analyse(full, models: m) } catch { throw .models(error) }
        let planes = SemanticPlanes(analysis: analysis, image: small, width: w, height: h)
        var out: [AuxiliaryPlane] = []
        for k in wanted {
            switch k {
            case .portraitEffects:
                if let p = planes.portrait { out.append(AuxiliaryPlane(kind: .portraitEffects, width: w, height: h, pixels: p)) }
            case .lips: out.append(AuxiliaryPlane(kind: .lips, width: w, height: h, pixels: planes.lips))
            case .teeth: out.append(AuxiliaryPlane(kind: .teeth, width: w, height: h, pixels: planes.teeth))
            case .skin:
                let colour = MatteBuilder.skin(image: image, space: space)
                out.append(AuxiliaryPlane(kind: .skin, width: w, height: h, pixels: planes.skin(skinColor: colour.pixels)))
            default: break
            }
        }
        return out
    }

    /// The render as 8-bit RGB (8-bit renders shared, 16-bit samples rounded to x · 255 / 65535);
    /// `nil` for a float render.
    static func fullImage(_ image: RenderedImage) -> MatteInputImage? {
        switch image.bitsPerSample {
        case 8: return MatteInputImage(width: image.width, height: image.height, pixels: image.pixels8)
        case 16: return MatteInputImage(width: image.width, height: image.height,
                                        pixels: image.pixels16.map { UInt8((UInt32($0) * 255 + 32767) / 65535) })
        default: return nil
        }
    }

    /// The render at plane size as 8-bit RGB: each plane pixel the rounded mean of the
    /// output pixels it covers (columns ⌊i·W/w⌋ ..< ⌊(i+1)·W/w⌋, at least one; rows likewise), 16-bit
    /// samples scaled by 255/65535. `nil` for a float render.
    static func inputImage(_ image: RenderedImage, width: Int, height: Int) -> MatteInputImage? {
        let W = image.width, H = image.height
        guard width > 0, height > 0, W > 0, H > 0 else { return nil }
        let sixteen: Bool
        switch image.bitsPerSample {
        case 8: sixteen = false; guard image.pixels8.count == W * H * 3 else { return nil }
        case 16: sixteen = true; guard image.pixels16.count == W * H * 3 else { return nil }
        default: return nil
        }
        let xs = (0...width).map { min(W, $0 * W / width) }, ys = (0...height).map { min(H, $0 * H / height) }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        image.pixels8.withUnsafeBufferPointer { p8 in
        image.pixels16.withUnsafeBufferPointer { p16 in
            for y in 0..<height {
                let ya = ys[y], yb = max(ys[y + 1], min(H, ya + 1))
                for x in 0..<width {
                    let xa = xs[x], xb = max(xs[x + 1], min(W, xa + 1))
                    var r = 0, g = 0, b = 0
                    for yy in ya..<yb {
                        var o = (yy * W + xa) * 3
                        for _ in xa..<xb {
                            if sixteen { r += Int(p16[o]); g += Int(p16[o + 1]); b += Int(p16[o + 2]) } else { r += Int(p8[o]); g += Int(p8[o + 1]); b += Int(p8[o + 2]) }
                            o += 3
                        }
                    }
                    let n = (yb - ya) * (xb - xa) * (sixteen ? 65535 : 255)
                    let k = (y * width + x) * 3
                    out[k] = UInt8((r * 255 + n / 2) / n); out[k + 1] = UInt8((g * 255 + n / 2) / n); out[k + 2] = UInt8((b * 255 + n / 2) / n)
                }
            }
        }
        }
        return MatteInputImage(width: width, height: height, pixels: out)
    }

    /// Lines for `darkroom explain`: what each requested semantic matte is made from.
    public static func explanation(_ kinds: [MatteKind]) -> [String] {
        let files = [SemanticMatteModels.personFile, SemanticMatteModels.detectorFile, SemanticMatteModels.meshFile]
        var lines: [String] = []
        for k in MatteKind.allCases where kinds.contains(k) && MatteKind.semanticKinds.contains(k) {
            switch k {
            case .portraitEffects:
                lines.append("matte portrait: person segmentation 256×256 (\(files[0])) + guided filter (radius = long side / \(SemanticPlanes.guidedRadiusDivisor), ε \(SemanticPlanes.guidedEpsilon)); only when a face is found (\(files[1]) + \(files[2]), presence ≥ \(SemanticMattes.minFacePresence))")
            case .skin: lines.append("matte skin: skin-color likelihood × portrait matte × (1 − eyes) × (1 − mouth) (Face Mesh contours)")
            case .teeth: lines.append("matte teeth: inner-lip polygon × bright (luma \(SemanticPlanes.teethLuma)) low-saturation (\(SemanticPlanes.teethSaturation)) pixels")
            case .lips: lines.append("matte lips: outer − inner lip polygons (Face Mesh), urn:org:darkroom:aux:lipsmatte")
            default: break
            }
        }
        return lines
    }
}
