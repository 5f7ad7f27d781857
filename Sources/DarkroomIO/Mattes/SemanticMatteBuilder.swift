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
/// - 16-bit renders go to the models as their high bytes; a float render (`--format exr`) has no
///   display encoding and is refused.
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
        guard let input = inputImage(image) else { throw .floatRender }
        lock.lock(); defer { lock.unlock() }
        let m = try models()
        let analysis: SemanticAnalysis
        do { analysis = try SemanticMattes.analyse(input, models: m) } catch { throw .models(error) }
        let (w, h) = MatteBuilder.planeSize(width: image.width, height: image.height)
        let planes = SemanticPlanes(analysis: analysis, image: input, width: w, height: h)
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

    /// The render as the models' 8-bit RGB (16-bit samples: their high byte); nil for a float render.
    static func inputImage(_ image: RenderedImage) -> MatteInputImage? {
        switch image.bitsPerSample {
        case 8: return MatteInputImage(width: image.width, height: image.height, pixels: image.pixels8)
        case 16: return MatteInputImage(width: image.width, height: image.height, pixels: image.pixels16.map { UInt8($0 >> 8) })
        default: return nil
        }
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
