import Foundation
import Testing
@testable import DarkroomNeural

/// Hostile model bytes: truncations, bad offsets, lying shapes, unsupported operators and seeded
/// random mutations of the flatbuffer's structure must end in a `NeuralError`, never a trap or a
/// hang. Models come from `make models`; tests that need one skip, with a message, without it.
@Suite struct RuntimeHostileTests {
    static func bytes(_ name: String) -> [UInt8]? {
        guard let path = try? ModelLocator.path(for: name + ".tflite"),
              let data = FileManager.default.contents(atPath: path) else {
            print("RuntimeHostileTests: \(name).tflite absent — skipped; run `make models`")
            return nil
        }
        return [UInt8](data)
    }

    static func put32(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt32) {
        for k in 0..<4 { bytes[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
    }

    @Test(arguments: [0, 4, 7, 8, 12, 100, 1000, 50_000, 200_000, 229_000])
    func truncated(_ length: Int) throws {
        guard let full = Self.bytes("face_detection_short_range") else { return }
        #expect(full.count == 229_714)
        #expect(throws: NeuralError.self) { try NeuralModel(bytes: Array(full.prefix(length)), name: "cut.tflite") }
    }

    @Test func wrongIdentifier() throws {
        guard var b = Self.bytes("selfie_segmentation") else { return }
        b[4] = UInt8(ascii: "X")
        #expect(throws: NeuralError.malformed(file: "x.tflite", offset: 4, reason: "file identifier is not TFL3")) {
            try NeuralModel(bytes: b, name: "x.tflite")
        }
    }

    @Test func rootOffsetPastTheEnd() throws {
        guard var b = Self.bytes("selfie_segmentation") else { return }
        Self.put32(&b, 0, UInt32(b.count + 16))
        do {
            _ = try NeuralModel(bytes: b, name: "root.tflite")
            Issue.record("accepted a root offset past the end")
        } catch {
            guard case .malformed(let file, _, _) = error else { Issue.record("\(error)"); return }
            #expect(file == "root.tflite")
            #expect(error.description.hasPrefix("root.tflite: not a valid TFLite model at byte"))
        }
    }

    /// The selfie model with its HARD_SWISH operator code changed to GATHER (36), which we do not run.
    @Test func unsupportedBuiltin() throws {
        guard var b = Self.bytes("selfie_segmentation") else { return }
        let r = FlatBufferReader(bytes: b, file: "s")
        var patched = false
        for code in try r.tableVector(try r.root(), 1) where try r.int32(code, 3) == 117 {
            if let p = try r.field(code, 3) { Self.put32(&b, p, 36) }
            if let p = try r.field(code, 0) { b[p] = 36 }
            patched = true
        }
        try #require(patched)
        do {
            _ = try NeuralModel(bytes: b, name: "gather.tflite")
            Issue.record("accepted GATHER")
        } catch {
            guard case .unsupportedOperator(let file, _, let name) = error else { Issue.record("\(error)"); return }
            #expect(file == "gather.tflite")
            #expect(name == "builtin 36")
        }
    }

    /// Face Mesh with attention uses MediaPipe custom operators the runtime does not implement.
    @Test func unsupportedCustomOperators() throws {
        guard let b = Self.bytes("face_landmark_with_attention") else { return }
        do {
            _ = try NeuralModel(bytes: b, name: "attention.tflite")
            Issue.record("accepted face_landmark_with_attention")
        } catch {
            guard case .unsupportedOperator = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("is not supported"))
        }
    }

    /// A tensor whose declared shape is not what its operator produces (first CONV_2D output, H + 1):
    /// XNNPACK would size buffers from the declaration, so the graph builder must refuse it.
    @Test func lyingOutputShape() throws {
        guard var b = Self.bytes("selfie_segmentation") else { return }
        let model = try TFLiteModel(bytes: b, file: "s")
        let conv = try #require(model.operators.first { $0.builtinCode == 3 })
        let r = model.reader
        let graph = try #require(try r.tableVector(try r.root(), 2).first)
        let tensor = try r.tableVector(graph, 0)[conv.outputs[0]]
        let shape = try #require(try r.vector(tensor, 0, elementSize: 4))
        Self.put32(&b, shape.start + 4, UInt32(model.tensors[conv.outputs[0]].shape[1] + 1))
        do {
            _ = try NeuralModel(bytes: b, name: "shape.tflite")
            Issue.record("accepted a lying shape")
        } catch {
            guard case .unsupportedTensor(_, _, let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("declared shape"))
        }
    }

    /// An operator input index past the tensor list.
    @Test func tensorIndexOutOfRange() throws {
        guard var b = Self.bytes("face_landmark") else { return }
        let r = FlatBufferReader(bytes: b, file: "s")
        let graph = try #require(try r.tableVector(try r.root(), 2).first)
        let op = try #require(try r.tableVector(graph, 3).last)
        let inputs = try #require(try r.vector(op, 1, elementSize: 4))
        Self.put32(&b, inputs.start, 1_000_000)
        #expect(throws: NeuralError.self) { try NeuralModel(bytes: b, name: "index.tflite") }
    }

    /// Seeded mutations (1–4 random bytes set to random values; 200 per model, NEURAL_MUTANTS to change)
    /// of each model outside its weight data, i.e. in the flatbuffer's tables, vtables, vectors and
    /// offsets. Each must load and run, or throw a NeuralError; a trap ends the test run.
    @Test(arguments: ["face_detection_short_range", "selfie_segmentation", "face_landmark"])
    func randomStructureMutations(_ name: String) throws {
        guard let original = Self.bytes(name) else { return }
        let count = Int(ProcessInfo.processInfo.environment["NEURAL_MUTANTS"] ?? "") ?? 200
        let model = try TFLiteModel(bytes: original, file: "s")
        var weights = IndexSet()
        for t in model.tensors { if let d = t.data { weights.insert(integersIn: d) } }
        let structure = (0..<original.count).filter { !weights.contains($0) }
        #expect(structure.count > 1000 && structure.count < original.count / 4)
        var rng = SplitMix64(seed: 18 &+ UInt64(original.count))
        var rejected = 0, ran = 0
        let zeros = [Float](repeating: 0, count: model.tensors[model.inputs[0]].elementCount)
        for _ in 0..<count {
            var b = original
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                b[structure[Int(rng.next() % UInt64(structure.count))]] = UInt8(truncatingIfNeeded: rng.next())
            }
            do {
                let m = try NeuralModel(bytes: b, name: "mutant.tflite")
                if m.inputShape.reduce(1, *) == zeros.count { _ = try m.run(zeros) }
                ran += 1
            } catch {
                #expect(error.description.hasPrefix("mutant.tflite: "))
                rejected += 1
            }
        }
        print("RuntimeHostileTests: \(name): \(count) structure mutants: \(rejected) rejected with a NeuralError, \(ran) loaded and ran")
        #expect(rejected > 0)
    }
}

/// A small deterministic generator (SplitMix64) so the mutations are the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Exhaustive damage to the tiny committed operator models (no `make models` needed, never skipped).
@Suite struct RuntimeHostileTinyModelTests {
    static func model(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: RuntimeReferenceTests.fixtures.appendingPathComponent(name)))
    }

    /// Every prefix of the Convolution2DTransposeBias model: a NeuralError or (for prefixes that keep
    /// every byte the flatbuffer reaches) a model that runs; never a trap.
    @Test func everyTruncation() throws {
        let full = try Self.model("op_transpose_conv_bias.tflite")
        var rejected = 0
        for length in 0..<full.count {
            do {
                let m = try NeuralModel(bytes: Array(full.prefix(length)), name: "cut.tflite")
                _ = try m.run([Float](repeating: 0.5, count: m.inputShape.reduce(1, *)))
            } catch {
                #expect(error.description.hasPrefix("cut.tflite: "))
                rejected += 1
            }
        }
        print("RuntimeHostileTinyModelTests: \(rejected) of \(full.count) truncations rejected")
        #expect(rejected >= full.count * 9 / 10)
    }

    /// Every byte of the operator-mix model inverted in turn (the concatenation tail, resize, pooling
    /// and MEAN paths): a NeuralError or a model that runs; never a trap.
    @Test func everyByteInverted() throws {
        let original = try Self.model("op_misc.tflite")
        var rejected = 0
        for k in 0..<original.count {
            var b = original
            b[k] ^= 0xFF
            do {
                let m = try NeuralModel(bytes: b, name: "flip.tflite")
                _ = try m.run([Float](repeating: 0.5, count: m.inputShape.reduce(1, *)))
            } catch {
                #expect(error.description.hasPrefix("flip.tflite: "))
                rejected += 1
            }
        }
        print("RuntimeHostileTinyModelTests: \(rejected) of \(original.count) byte inversions rejected")
        #expect(rejected > original.count / 4)
    }
}
