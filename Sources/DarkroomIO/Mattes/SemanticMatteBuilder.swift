import DarkroomCore
import DarkroomNeural
import Foundation

/// The neural mattes of `--mattes portrait,skin,teeth,lips` for a developed image: DarkroomNeural's
/// `SemanticMattes` (MediaPipe 0.10.21's person, BlazeFace and Face Mesh models through XNNPACK) on
/// the 8-bit output, turned into planes of `MatteBuilder.planeSize` by `SemanticPlanes`.
///
/// - `portrait` is written only when a face is found (a statue or landscape gets none); `skin`,
///   `teeth` and `lips` are written (all zero when there is no face, as Apple writes empty mattes).
/// - `skin` = the `skin-color` likelihood, smoothed by a guided filter, inside the portrait matte,
///   minus eyes, lips and mouth.
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
        guard let full = fullImage(image) else { throw .floatRender }
        // The models (single-threaded) run while the other core makes the plane-size image and the
        // colour skin likelihood; both are pure functions of the render, so the bytes are the same.
        let wantsSkin = wanted.contains(.skin)
        let analysisSlot = ResultSlot<Result<SemanticAnalysis, Failure>>()
        let smallSlot = ResultSlot<MatteInputImage>(), colourSlot = ResultSlot<[UInt8]>()
        DispatchQueue.concurrentPerform(iterations: 2) { job in
            if job == 0 {
                analysisSlot.value = analyse(full)
            } else {
                smallSlot.value = inputImage(image, width: w, height: h)
                if wantsSkin { colourSlot.value = MatteBuilder.skin(image: image, space: space).pixels }
            }
        }
        guard let small = smallSlot.value, let result = analysisSlot.value else { throw .floatRender }
        let analysis = try result.get()
        let planes = SemanticPlanes(analysis: analysis, image: small, width: w, height: h)
        var out: [AuxiliaryPlane] = []
        for k in wanted {
            switch k {
            case .portraitEffects:
                if let p = planes.portrait { out.append(AuxiliaryPlane(kind: .portraitEffects, width: w, height: h, pixels: p)) }
            case .lips: out.append(AuxiliaryPlane(kind: .lips, width: w, height: h, pixels: planes.lips))
            case .teeth: out.append(AuxiliaryPlane(kind: .teeth, width: w, height: h, pixels: planes.teeth))
            case .skin:
                out.append(AuxiliaryPlane(kind: .skin, width: w, height: h, pixels: planes.skin(skinColor: colourSlot.value ?? [])))
            default: break
            }
        }
        return out
    }

    /// Semantic planes being computed on a thread of their own (see `start`).
    public final class Pending: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var result: Result<[AuxiliaryPlane], Failure>?

        init(_ work: @escaping @Sendable () -> Result<[AuxiliaryPlane], Failure>) {
            // A thread of its own, not a Dispatch worker: the caller may block in `wait` on one.
            let thread = Thread { [self] in
                let r = work()
                lock.lock(); result = r; lock.unlock()
                done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }

        /// The planes (request order), waiting for them if needed; any number of calls.
        public func wait() throws(Failure) -> [AuxiliaryPlane] {
            done.wait(); done.signal()   // left signalled for the next call
            lock.lock(); defer { lock.unlock() }
            return try (result ?? .success([])).get()
        }
    }

    /// Starts `planes(kinds, image:, space:)` on a thread of its own and returns at once (`nil` when
    /// no semantic matte is requested), so the planes are computed while the primary image is being
    /// encoded. What usually fails fails here, before anything is encoded: a float render, missing
    /// or unreadable models (they are loaded now).
    public static func start(_ kinds: [MatteKind], image: RenderedImage, space: OutputColorSpace) throws(Failure) -> Pending? {
        guard kinds.contains(where: { MatteKind.semanticKinds.contains($0) }) else { return nil }
        guard image.bitsPerSample == 8 || image.bitsPerSample == 16 else { throw .floatRender }
        lock.lock()
        do throws(Failure) { _ = try models() } catch { lock.unlock(); throw error }
        lock.unlock()
        return Pending {
            do throws(Failure) { return .success(try planes(kinds, image: image, space: space)) } catch { return .failure(error) }
        }
    }

    /// The models' analysis of `full` (one image at a time: the loaded models are shared).
    static func analyse(_ full: MatteInputImage) -> Result<SemanticAnalysis, Failure> {
        lock.lock(); defer { lock.unlock() }
        do {
            let m = try models()
            do { return .success(try SemanticMattes.analyse(full, models: m)) } catch { return .failure(.models(error)) }
        } catch { return .failure(error) }
    }

    /// One result written by one concurrent job and read after all jobs ended.
    final class ResultSlot<T>: @unchecked Sendable { var value: T? }

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
        out.withUnsafeMutableBufferPointer { o in
            if sixteen {
                image.pixels16.withUnsafeBufferPointer { p in
                    RowBands.run(height) { blockMeans(p, W: W, H: H, xs: xs, ys: ys, width: width, rows: $0, scale: 65535, out: o) }
                }
            } else {
                image.pixels8.withUnsafeBufferPointer { p in
                    RowBands.run(height) { blockMeans(p, W: W, H: H, xs: xs, ys: ys, width: width, rows: $0, scale: 255, out: o) }
                }
            }
        }
        return MatteInputImage(width: width, height: height, pixels: out)
    }

    /// Rows `rows` of `inputImage`: each plane pixel the rounded mean of its block of `px`
    /// (samples 0…`scale`) on the 0…255 scale.
    @inline(__always)
    static func blockMeans<T: BinaryInteger>(_ px: UnsafeBufferPointer<T>, W: Int, H: Int, xs: [Int], ys: [Int], width: Int,
                                             rows: Range<Int>, scale: Int, out: UnsafeMutableBufferPointer<UInt8>) {
        for y in rows {
            let ya = ys[y], yb = max(ys[y + 1], min(H, ya + 1))
            if yb - ya == 2 && W == 2 * width {
                // Exact 2 × 2 blocks (a half-size plane): the same sums, unrolled.
                let r0 = ya * W * 3, r1 = r0 + W * 3, n = 4 * scale
                for x in 0..<width {
                    let a = r0 + 6 * x, c = r1 + 6 * x
                    let r = Int(px[a]) + Int(px[a + 3]) + Int(px[c]) + Int(px[c + 3])
                    let g = Int(px[a + 1]) + Int(px[a + 4]) + Int(px[c + 1]) + Int(px[c + 4])
                    let b = Int(px[a + 2]) + Int(px[a + 5]) + Int(px[c + 2]) + Int(px[c + 5])
                    let k = (y * width + x) * 3
                    out[k] = UInt8((r * 255 + n / 2) / n); out[k + 1] = UInt8((g * 255 + n / 2) / n); out[k + 2] = UInt8((b * 255 + n / 2) / n)
                }
                continue
            }
            for x in 0..<width {
                let xa = xs[x], xb = max(xs[x + 1], min(W, xa + 1))
                var r = 0, g = 0, b = 0
                for yy in ya..<yb {
                    var o = (yy * W + xa) * 3
                    for _ in xa..<xb { r += Int(px[o]); g += Int(px[o + 1]); b += Int(px[o + 2]); o += 3 }
                }
                let n = (yb - ya) * (xb - xa) * scale
                let k = (y * width + x) * 3
                out[k] = UInt8((r * 255 + n / 2) / n); out[k + 1] = UInt8((g * 255 + n / 2) / n); out[k + 2] = UInt8((b * 255 + n / 2) / n)
            }
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
            case .skin: lines.append("matte skin: skin-color likelihood smoothed by a guided filter (luma guide, radius = long side / \(2 * SemanticPlanes.guidedRadiusDivisor)) × portrait matte × (1 − eyes) × (1 − mouth) (Face Mesh contours)")
            case .teeth: lines.append("matte teeth: inner-lip polygon × bright (luma \(SemanticPlanes.teethLuma)) low-saturation (\(SemanticPlanes.teethSaturation)) pixels")
            case .lips: lines.append("matte lips: outer − inner lip polygons (Face Mesh), urn:org:darkroom:aux:lipsmatte")
            default: break
            }
        }
        return lines
    }
}
