import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomNeural

/// The MediaPipe models run by DarkroomNeural (our flatbuffer reader + XNNPACK) against Google's TFLite
/// interpreter with its own built-in kernels (no XNNPACK), on a Kodak portrait and a synthetic pattern:
/// fixtures in Tests/NeuralReference (made by Tests/Generators/tflite_reference.py; see its README).
/// Skipped, with a message, when `make models` has not run.
@Suite struct RuntimeReferenceTests {
    static let fixtures = TestSupport.packageRoot.appendingPathComponent("Tests/NeuralReference")

    /// Largest |ours − reference| allowed per model. XNNPACK and TFLite's built-in kernels sum in
    /// different orders, so float32 rounding differs; measured maxima (kodim04 / pattern):
    /// selfie 2.9e-5 / 1.2e-17, face detection 8.2e-5 / 4.6e-5, face landmark 1.1e-4 / 1.1e-4
    /// (README "Neural inference"); each bound is 3–6× its measured maximum.
    static let tolerance: [String: Float] = [
        "selfie_segmentation": 1e-4,          // mask probabilities in [0, 1]
        "face_detection_short_range": 5e-4,   // box regressors (pixels of 128, up to ~150) and score logits
        "face_landmark": 5e-4,                // landmark coordinates (pixels of 192) and a face logit
    ]

    static func modelPath(_ name: String) -> String? {
        guard let path = try? ModelLocator.path(for: name + ".tflite") else {
            print("RuntimeReferenceTests: \(name).tflite absent — skipped; run `make models`")
            return nil
        }
        return path
    }

    static func floats(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: 4).map { (o: Int) -> Float in
            let b0 = UInt32(bytes[o]), b1 = UInt32(bytes[o + 1]) << 8
            let b2 = UInt32(bytes[o + 2]) << 16, b3 = UInt32(bytes[o + 3]) << 24
            return Float(bitPattern: b0 | b1 | b2 | b3)
        }
    }

    /// The 256×256×3 uint8 images the generator used.
    static func image(_ label: String) throws -> [UInt8] {
        if label == "kodim04" { return [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("kodim04-256.rgb"))) }
        var p = [UInt8](repeating: 0, count: 256 * 256 * 3)
        for y in 0..<256 { for x in 0..<256 { for c in 0..<3 { p[(y * 256 + x) * 3 + c] = UInt8((7 * x + 13 * y + 29 * c) % 256) } } }
        return p
    }

    /// Each model's input from the 256×256 image, with the generator's float32 operations.
    static func input(for model: String, _ rgb: [UInt8]) -> [Float] {
        switch model {
        case "selfie_segmentation":
            return rgb.map { Float($0) / Float(255) }
        case "face_detection_short_range":
            var out: [Float] = []
            for y in 0..<128 { for x in 0..<128 { for c in 0..<3 {
                let s = [(0, 0), (0, 1), (1, 0), (1, 1)].reduce(0) { $0 + Int(rgb[((2 * y + $1.0) * 256 + 2 * x + $1.1) * 3 + c]) }
                out.append(Float(s) / Float(510) - Float(1))
            } } }
            return out
        default:
            var out: [Float] = []
            for y in 0..<192 { for x in 0..<192 { for c in 0..<3 { out.append(Float(rgb[((4 * y / 3) * 256 + 4 * x / 3) * 3 + c]) / Float(255)) } } }
            return out
        }
    }

    @Test(arguments: ["selfie_segmentation", "face_detection_short_range", "face_landmark"], ["kodim04", "pattern"])
    func matchesTFLiteInterpreter(_ name: String, _ label: String) throws {
        guard let path = Self.modelPath(name) else { return }
        let model = try NeuralModel(path: path)
        var ours = try model.run(Self.input(for: name, try Self.image(label)))
        if name == "selfie_segmentation" {
            // The fixture keeps every 4th row and column of the 256×256 mask.
            #expect(model.outputShapes == [[1, 256, 256, 1]])
            ours = [stride(from: 0, to: 256, by: 4).flatMap { y in stride(from: 0, to: 256, by: 4).map { x in ours[0][y * 256 + x] } }]
        }
        let reference = try Self.floats(Self.fixtures.appendingPathComponent("\(name).\(label).bin"))
        let flat = ours.flatMap { $0 }
        try #require(flat.count == reference.count, "\(name): \(flat.count) values, reference has \(reference.count)")
        let tol = Self.tolerance[name] ?? 0
        var worst: Float = 0
        for (a, b) in zip(flat, reference) { worst = max(worst, abs(a - b)) }
        print("RuntimeReferenceTests: \(name) on \(label): max |ours − TFLite| = \(worst) over \(flat.count) values")
        #expect(worst <= tol, "\(name) on \(label): max abs difference \(worst)")
        if label == "kodim04" {
            // A real model output, not a constant: on the portrait the reference spans a range.
            #expect((reference.max() ?? 0) - (reference.min() ?? 0) > 0.5)
        }
    }

    /// Thread count changes nothing: the same bytes with 1 and 2 threads.
    @Test func threadCountDoesNotChangeOutput() throws {
        guard let path = Self.modelPath("selfie_segmentation") else { return }
        let input = Self.input(for: "selfie_segmentation", try Self.image("kodim04"))
        let one = try NeuralModel(path: path, threads: 1).run(input)
        let two = try NeuralModel(path: path, threads: 2).run(input)
        #expect(one == two)
    }

    @Test func shapesAndNames() throws {
        guard let path = Self.modelPath("face_detection_short_range") else { return }
        let model = try NeuralModel(path: path)
        #expect(model.name == "face_detection_short_range.tflite")
        #expect(model.inputShape == [1, 128, 128, 3])
        #expect(model.outputShapes == [[1, 896, 16], [1, 896, 1]])
        #expect(model.outputNames == ["regressors", "classificators"])
        #expect(throws: NeuralError.inputSize(file: model.name, expected: 128 * 128 * 3, got: 5)) { try model.run([0, 0, 0, 0, 0]) }
    }

    @Test func locatorNamesMakeModels() {
        do {
            _ = try ModelLocator.path(for: "no-such-model.tflite")
            Issue.record("found a model that does not exist")
        } catch {
            #expect(error.description.contains("no-such-model.tflite"))
            #expect(error.description.contains("make models"))
        }
    }
}
