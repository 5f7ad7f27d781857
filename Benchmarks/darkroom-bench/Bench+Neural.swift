import DarkroomNeural
import Foundation

/// Neural inference (issue 18): MediaPipe's person-segmentation model (selfie_segmentation.tflite,
/// 256×256×3 → 256×256×1) through DarkroomNeural (our TFLite reader + XNNPACK), one frame per run,
/// on 1 and 2 threads; the bar is ≤ 15 ms per frame on one core. Skipped (and said so)
/// when `make models` has not fetched the model.
extension Bench {
    /// Frames timed per thread count (after 3 warm-up frames); the row reports best and median.
    static let neuralFrames = 50

    mutating func neural() throws {
        let path: String
        do {
            path = try ModelLocator.path(for: "selfie_segmentation.tflite")
        } catch {
            report.skipped.append("neural inference: \(error)")
            return
        }
        // A deterministic smooth RGB frame in [0, 1] (the model's input scaling).
        var frame = [Float](repeating: 0, count: 256 * 256 * 3)
        for y in 0..<256 { for x in 0..<256 { for c in 0..<3 { frame[(y * 256 + x) * 3 + c] = Float((x + 2 * y + 85 * c) % 256) / 255 } } }
        var outputs: [Int: [[Float]]] = [:]
        for threads in [1, 2] {
            let model = try NeuralModel(path: path, threads: threads)
            for _ in 0..<3 { _ = try model.run(frame) }
            let (t, out) = try measure(runs: Self.neuralFrames) { try model.run(frame) }
            outputs[threads] = out
            add("stage", "selfie_segmentation 256²", "person segmentation inference (XNNPACK)", threads: threads, t,
                megapixels: 256.0 * 256.0 / 1e6,
                note: "\(Self.neuralFrames) frames; ms/frame: median \(f2(t.median * 1000)), CPU \(f2(t.cpuMedian * 1000))")
            if threads == 1 {
                report.checks.append(Check(criterion: "person model ≤ 15 ms per 256×256 frame on 1 thread (issue 18)",
                                           measured: "median \(f2(t.median * 1000)) ms, best \(f2(t.best * 1000)) ms over \(Self.neuralFrames) frames",
                                           pass: t.median <= 0.015))
            }
        }
        report.identical["selfie_segmentation mask 1T = 2T"] = outputs[1] == outputs[2]
    }
}
