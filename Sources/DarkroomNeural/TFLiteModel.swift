/// A TFLite model as read from its flatbuffer (schema: tensorflow/lite/schema/schema.fbs): the first
/// subgraph's tensors and operators, the buffers' byte ranges, the operator codes. Only structure is
/// read here, every index and range checked; `NeuralGraph` turns it into an executable graph.
struct TFLiteModel {
    /// `TensorType` values of schema.fbs this runtime reads.
    enum TensorType: UInt8 {
        case float32 = 0, float16 = 1, int32 = 2
    }

    struct Tensor {
        let name: String
        let shape: [Int]
        /// The raw `TensorType` byte.
        let type: UInt8
        /// Byte range of the tensor's constant data, nil for activations (empty buffer).
        let data: Range<Int>?
        /// Product of the shape (checked: ≤ `TFLiteModel.maximumElements`).
        let elementCount: Int
    }

    struct Operator {
        let index: Int
        /// `BuiltinOperator` value (32 = CUSTOM).
        let builtinCode: Int32
        /// The custom operator's name (CUSTOM only).
        let customCode: String?
        /// Tensor indices; -1 marks an omitted optional input.
        let inputs: [Int]
        let outputs: [Int]
        /// The builtin options table, when present.
        let options: FlatBufferReader.Table?
        /// The custom options bytes (CUSTOM only).
        let customOptions: Range<Int>?
    }

    /// Largest tensor accepted (elements): 2^28 floats = 1 GiB.
    static let maximumElements = 1 << 28

    let reader: FlatBufferReader
    let tensors: [Tensor]
    let operators: [Operator]
    let inputs: [Int]
    let outputs: [Int]

    var file: String { reader.file }

    init(bytes: [UInt8], file: String) throws(NeuralError) {
        let r = FlatBufferReader(bytes: bytes, file: file)
        reader = r
        guard bytes.count >= 8 else { throw r.malformed(0, "only \(bytes.count) bytes") }
        // Bytes 4..<8 hold the file identifier "TFL3".
        guard bytes[4] == 0x54, bytes[5] == 0x46, bytes[6] == 0x4C, bytes[7] == 0x33 else {
            throw r.malformed(4, "file identifier is not TFL3")
        }
        let model = try r.root()
        let version = try r.uint32(model, 0)
        guard version == 3 else { throw r.malformed(model.position, "schema version \(version), expected 3") }

        // Model.operator_codes: (deprecated_builtin_code: byte, custom_code: string, version, builtin_code: int).
        var codes: [(Int32, String?)] = []
        for code in try r.tableVector(model, 1) {
            let deprecated = Int32(Int8(bitPattern: try r.uint8(code, 0)))
            let builtin = try r.int32(code, 3)
            codes.append((max(deprecated, builtin), try r.string(code, 1)))
        }

        // Model.buffers: Buffer.data [ubyte], or (offset, size) into the file for large models.
        var buffers: [Range<Int>?] = []
        for buffer in try r.tableVector(model, 4) {
            if let range = try r.byteRange(buffer, 0), !range.isEmpty {
                buffers.append(range)
            } else {
                let offset = try r.uint64(buffer, 1), size = try r.uint64(buffer, 2)
                if offset > 1 {
                    guard offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                        throw r.malformed(buffer.position, "buffer at \(offset)+\(size) lies outside the file")
                    }
                    buffers.append(Int(offset)..<Int(offset + size))
                } else {
                    buffers.append(nil)
                }
            }
        }

        let subgraphs = try r.tableVector(model, 2)
        guard let graph = subgraphs.first else { throw r.malformed(model.position, "no subgraph") }

        // SubGraph.tensors: Tensor(shape [int], type byte, buffer uint, name string, ...).
        var tensors: [Tensor] = []
        for (k, t) in try r.tableVector(graph, 0).enumerated() {
            let name = try r.string(t, 3) ?? "#\(k)"
            let dims = try r.int32Vector(t, 0)
            guard dims.count <= 8 else { throw NeuralError.unsupportedTensor(file: file, tensor: name, reason: "rank \(dims.count)") }
            var count = 1
            for d in dims {
                guard d >= 0 else { throw NeuralError.unsupportedTensor(file: file, tensor: name, reason: "dimension \(d)") }
                let (product, overflow) = count.multipliedReportingOverflow(by: Int(d))
                guard !overflow, product <= Self.maximumElements else {
                    throw NeuralError.unsupportedTensor(file: file, tensor: name, reason: "shape \(dims) is too large")
                }
                count = product
            }
            let type = try r.uint8(t, 1)
            let bufferIndex = Int(try r.uint32(t, 2))
            guard bufferIndex < max(buffers.count, 1) else {
                throw r.malformed(t.position, "tensor '\(name)' refers to buffer \(bufferIndex) of \(buffers.count)")
            }
            let data = bufferIndex < buffers.count ? buffers[bufferIndex] : nil
            tensors.append(Tensor(name: name, shape: dims.map { Int($0) }, type: type, data: data, elementCount: count))
        }

        func tensorIndices(_ values: [Int32], optional: Bool, at position: Int) throws(NeuralError) -> [Int] {
            var out: [Int] = []
            for v in values {
                guard (v >= 0 && Int(v) < tensors.count) || (optional && v == -1) else {
                    throw r.malformed(position, "tensor index \(v) of \(tensors.count)")
                }
                out.append(Int(v))
            }
            return out
        }

        // SubGraph.operators: Operator(opcode_index, inputs, outputs, builtin_options_type,
        // builtin_options, custom_options, ...).
        var operators: [Operator] = []
        for (k, op) in try r.tableVector(graph, 3).enumerated() {
            let codeIndex = Int(try r.uint32(op, 0))
            guard codeIndex < codes.count else {
                throw r.malformed(op.position, "operator \(k) uses opcode \(codeIndex) of \(codes.count)")
            }
            operators.append(Operator(
                index: k, builtinCode: codes[codeIndex].0, customCode: codes[codeIndex].1,
                inputs: try tensorIndices(try r.int32Vector(op, 1), optional: true, at: op.position),
                outputs: try tensorIndices(try r.int32Vector(op, 2), optional: false, at: op.position),
                options: try r.tableField(op, 4),
                customOptions: try r.byteRange(op, 5)))
        }
        self.tensors = tensors
        self.operators = operators
        self.inputs = try tensorIndices(try r.int32Vector(graph, 1), optional: false, at: graph.position)
        self.outputs = try tensorIndices(try r.int32Vector(graph, 2), optional: false, at: graph.position)
    }

    /// A constant tensor's values as float32 (FLOAT32 data, or FLOAT16 widened).
    func floats(_ index: Int) throws(NeuralError) -> [Float]? {
        let t = tensors[index]
        guard let range = t.data else { return nil }
        switch TensorType(rawValue: t.type) {
        case .float32:
            guard range.count == t.elementCount * 4 else {
                throw reader.malformed(range.lowerBound, "tensor '\(t.name)' has \(range.count) bytes for \(t.elementCount) floats")
            }
            return (0..<t.elementCount).map { k in
                let o = range.lowerBound + 4 * k
                let bits = UInt32(reader.bytes[o]) | UInt32(reader.bytes[o + 1]) << 8
                    | UInt32(reader.bytes[o + 2]) << 16 | UInt32(reader.bytes[o + 3]) << 24
                return Float(bitPattern: bits)
            }
        case .float16:
            guard range.count == t.elementCount * 2 else {
                throw reader.malformed(range.lowerBound, "tensor '\(t.name)' has \(range.count) bytes for \(t.elementCount) halves")
            }
            return (0..<t.elementCount).map { k in
                let o = range.lowerBound + 2 * k
                return Self.floatFromHalf(UInt16(reader.bytes[o]) | UInt16(reader.bytes[o + 1]) << 8)
            }
        default:
            throw NeuralError.unsupportedTensor(file: file, tensor: t.name, reason: "type \(t.type) is not float32/float16")
        }
    }

    /// A constant INT32 tensor's values (shapes, paddings, sizes).
    func int32s(_ index: Int) throws(NeuralError) -> [Int]? {
        let t = tensors[index]
        guard let range = t.data else { return nil }
        guard t.type == TensorType.int32.rawValue, range.count == t.elementCount * 4 else {
            throw NeuralError.unsupportedTensor(file: file, tensor: t.name, reason: "expected \(t.elementCount) int32 values")
        }
        return (0..<t.elementCount).map { k in
            let o = range.lowerBound + 4 * k
            return Int(Int32(bitPattern: UInt32(reader.bytes[o]) | UInt32(reader.bytes[o + 1]) << 8
                | UInt32(reader.bytes[o + 2]) << 16 | UInt32(reader.bytes[o + 3]) << 24))
        }
    }

    /// IEEE 754 binary16 → binary32 (exact: every half is a float).
    static func floatFromHalf(_ h: UInt16) -> Float {
        let sign = UInt32(h & 0x8000) << 16
        let exponent = Int((h >> 10) & 0x1F)
        let mantissa = UInt32(h & 0x3FF)
        if exponent == 0x1F { return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13) }
        if exponent == 0 {
            // Zero or subnormal: mantissa × 2^-24.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign != 0 ? -magnitude : magnitude
        }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | mantissa << 13)
    }
}
