import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomNeural

/// Operators the MediaPipe models do not exercise (or exercise in one configuration only), each in a
/// tiny model written by Tests/Generators/tflite_reference.py and run here against its reference:
/// MediaPipe's Convolution2DTransposeBias against numpy; TRANSPOSE_CONV, RESIZE_BILINEAR (three
/// modes), RELU6, MEAN, CONCATENATION + RESHAPE (the Swift tail), RELU_N1_TO_1, AVERAGE_POOL_2D with
/// SAME padding and a broadcast ADD with fused RELU6 against TFLite's built-in kernels. The models are
/// committed fixtures, so these tests never skip.
@Suite struct RuntimeOperatorTests {
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: RuntimeReferenceTests.fixtures.appendingPathComponent(name))
    }

    /// Runs op_<name>.tflite on its input; returns the largest |ours − reference| per output.
    static func differences(_ name: String) throws -> (NeuralModel, [Float]) {
        let model = try NeuralModel(bytes: [UInt8](try fixture("op_\(name).tflite")), name: "op_\(name).tflite")
        let input = try RuntimeReferenceTests.floats(RuntimeReferenceTests.fixtures.appendingPathComponent("op_\(name).input.bin"))
        let reference = try RuntimeReferenceTests.floats(RuntimeReferenceTests.fixtures.appendingPathComponent("op_\(name).bin"))
        let outputs = try model.run(input)
        var offset = 0
        var worst: [Float] = []
        for (k, out) in outputs.enumerated() {
            #expect(out.count == model.outputShapes[k].reduce(1, *))
            guard offset + out.count <= reference.count else { Issue.record("reference too short"); return (model, worst) }
            worst.append(zip(out, reference[offset..<(offset + out.count)]).map { abs($0 - $1) }.max() ?? 0)
            offset += out.count
        }
        #expect(offset == reference.count)
        print("RuntimeOperatorTests: op_\(name): max |ours − reference| per output \(zip(model.outputNames, worst).map { "\($0) \($1)" })")
        return (model, worst)
    }

    /// Measured maximum: 9.5e-7 (3×3 kernel, 3 input channels, unit-normal data); every operator test
    /// allows 1e-5 (measured maxima 0 to 9.5e-7).
    @Test func convolution2DTransposeBiasMatchesNumpy() throws {
        let (model, worst) = try Self.differences("transpose_conv_bias")
        #expect(model.outputShapes == [[1, 10, 14, 4]])
        #expect(worst.count == 1 && worst.allSatisfy { $0 <= 1e-5 })
    }

    @Test func transposeConvSameAndValid() throws {
        let (model, worst) = try Self.differences("transpose_conv")
        #expect(model.outputShapes == [[1, 10, 14, 4], [1, 11, 15, 4]])
        #expect(worst.count == 2 && worst.allSatisfy { $0 <= 1e-5 })
    }

    @Test func resizePoolActivationsConcatenation() throws {
        let (model, worst) = try Self.differences("misc")
        #expect(model.outputNames == ["resize_align", "resize_half", "resize_legacy", "mean", "flat", "relu_n1_to_1", "avg_pool", "add_relu6"])
        #expect(worst.count == 8 && worst.allSatisfy { $0 <= 1e-5 })
    }
}
