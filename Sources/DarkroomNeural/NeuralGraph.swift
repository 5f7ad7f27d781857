/// A TFLite model turned into a checked list of nodes XNNPACK can run, plus a short tail of pure data
/// movement (CONCATENATION and the RESHAPEs after it) that this XNNPACK version has no node for and
/// that runs in Swift. Constant inputs are resolved here: FLOAT32 buffers are read and FLOAT16
/// weights behind a DEQUANTIZE are widened to float32 once, at load. Every node's output shape is
/// computed from its inputs and must equal the shape the model declares, so a hostile model cannot
/// make XNNPACK write past a buffer.
struct NeuralGraph {
    /// `BuiltinOperator` values of schema.fbs this runtime executes.
    enum Builtin: Int32 {
        case add = 0, averagePool2D = 1, concatenation = 2, conv2D = 3, depthwiseConv2D = 4, dequantize = 6
        case logistic = 14, maxPool2D = 17, mul = 18, relu = 19, reluN1To1 = 20, relu6 = 21, reshape = 22
        case resizeBilinear = 23, custom = 32, pad = 34, mean = 40, prelu = 54, transposeConv = 67, hardSwish = 117
    }

    /// TFLite `Padding`: SAME = 0, VALID = 1.
    enum Padding { case same, valid }

    /// A 2D window (convolution, pooling) in the input's H and W: kernel, stride, dilation, padding.
    struct Window {
        var kernelHeight: Int, kernelWidth: Int
        var strideHeight: Int, strideWidth: Int
        var dilationHeight = 1, dilationWidth = 1
        var padding: Padding
    }

    enum Node {
        /// `groups` groups of `groupInput` → `groupOutput` channels; filter OHWI, bias optional.
        case convolution(input: Int, filter: Int, bias: Int?, output: Int, window: Window, groups: Int,
                         groupInput: Int, groupOutput: Int, min: Float, max: Float)
        /// Filter 1HW(C·multiplier).
        case depthwise(input: Int, filter: Int, bias: Int?, output: Int, window: Window, multiplier: Int,
                       channels: Int, min: Float, max: Float)
        /// Transposed convolution, filter OHWI; paddings trim the output, adjustments extend it.
        case deconvolution(input: Int, filter: Int, bias: Int?, output: Int, padding: (top: Int, right: Int, bottom: Int, left: Int),
                           adjustment: (height: Int, width: Int), kernel: (height: Int, width: Int), stride: (height: Int, width: Int),
                           inputChannels: Int, outputChannels: Int, min: Float, max: Float)
        case averagePool(input: Int, output: Int, window: Window, min: Float, max: Float)
        case maxPool(input: Int, output: Int, window: Window, min: Float, max: Float)
        case globalAveragePool(input: Int, output: Int)
        case add(Int, Int, output: Int, min: Float, max: Float)
        case multiply(Int, Int, output: Int, min: Float, max: Float)
        case pad(input: Int, output: Int, before: [Int], after: [Int])
        case reshape(input: Int, output: Int)
        /// `alignCorners` / `halfPixelCenters` as in ResizeBilinearOptions.
        case resizeBilinear(input: Int, output: Int, alignCorners: Bool, halfPixelCenters: Bool)
        case hardSwish(input: Int, output: Int)
        case sigmoid(input: Int, output: Int)
        case clamp(input: Int, output: Int, min: Float, max: Float)
        /// Slope: one value per channel.
        case prelu(input: Int, slope: Int, output: Int)
    }

    /// Swift-executed data movement after the XNNPACK part.
    enum TailNode {
        case reshape(input: Int, output: Int)
        case concatenation(inputs: [Int], output: Int, axis: Int)
    }

    let model: TFLiteModel
    let nodes: [Node]
    let tail: [TailNode]
    /// Constant tensors (float32 values) by tensor index.
    let constants: [Int: [Float]]
    /// Shape overrides for constants XNNPACK wants in another rank (PReLU slopes → [C]).
    let constantShapes: [Int: [Int]]
    /// The model's single input tensor.
    let input: Int
    /// Tensors XNNPACK hands back: the model outputs it computes and the tail's inputs (except the
    /// model input, which the tail reads directly).
    let xnnOutputs: [Int]

    var file: String { model.file }

    init(model: TFLiteModel) throws(NeuralError) {
        self.model = model
        let file = model.file
        let tensors = model.tensors
        guard model.inputs.count == 1 else {
            throw NeuralError.malformed(file: file, offset: 0, reason: "\(model.inputs.count) inputs; Darkroom runs single-input models")
        }
        input = model.inputs[0]
        var constants: [Int: [Float]] = [:]
        var constantShapes: [Int: [Int]] = [:]
        var nodes: [Node] = []
        var tail: [TailNode] = []
        var tailTensors = Set<Int>()
        var produced = Set<Int>([input])

        func name(_ op: TFLiteModel.Operator) -> String {
            if let custom = op.customCode { return custom }
            if let b = Builtin(rawValue: op.builtinCode) { return "\(b)" }
            return "builtin \(op.builtinCode)"
        }
        func bad(_ t: Int, _ reason: String) -> NeuralError {
            .unsupportedTensor(file: file, tensor: tensors[t].name, reason: reason)
        }
        func shape(_ t: Int) -> [Int] { tensors[t].shape }
        /// A constant float tensor (read once).
        func constant(_ t: Int) throws(NeuralError) -> [Float]? {
            if let c = constants[t] { return c }
            guard let values = try model.floats(t) else { return nil }
            constants[t] = values
            return values
        }
        /// An activation or constant that must exist by now.
        func operand(_ t: Int) throws(NeuralError) {
            if produced.contains(t) { return }
            guard try constant(t) != nil else { throw bad(t, "is read before any operator writes it") }
        }
        func requireFloat(_ t: Int) throws(NeuralError) {
            guard tensors[t].type == TFLiteModel.TensorType.float32.rawValue else { throw bad(t, "type \(tensors[t].type); activations must be float32") }
        }
        func expect(_ t: Int, _ computed: [Int]) throws(NeuralError) {
            guard shape(t) == computed else { throw bad(t, "declared shape \(shape(t)) but the operator produces \(computed)") }
        }
        func rank4(_ t: Int) throws(NeuralError) -> (n: Int, h: Int, w: Int, c: Int) {
            let s = shape(t)
            guard s.count == 4, s.allSatisfy({ $0 >= 1 }) else { throw bad(t, "shape \(s), expected NHWC") }
            return (s[0], s[1], s[2], s[3])
        }
        func activation(_ code: UInt8, _ op: TFLiteModel.Operator) throws(NeuralError) -> (Float, Float) {
            // ActivationFunctionType: NONE, RELU, RELU_N1_TO_1, RELU6 (TANH, SIGN_BIT unsupported).
            switch code {
            case 0: return (-.infinity, .infinity)
            case 1: return (0, .infinity)
            case 2: return (-1, 1)
            case 3: return (0, 6)
            default: throw NeuralError.unsupportedOperator(file: file, index: op.index, name: "\(name(op)) with fused activation \(code)")
            }
        }
        func windowOutput(_ size: Int, kernel: Int, stride: Int, dilation: Int, padding: Padding) -> Int {
            let effective = (kernel - 1) * dilation + 1
            switch padding {
            case .same: return (size + stride - 1) / stride
            case .valid: return size >= effective ? (size - effective) / stride + 1 : 0
            }
        }
        func window(_ op: TFLiteModel.Operator, strides: (Int, Int), padding: Int, kernel: (Int, Int), dilation: (Int, Int)) throws(NeuralError) -> Window {
            let limit = 1 << 16
            for v in [strides.0, strides.1, kernel.0, kernel.1, dilation.0, dilation.1] where v < 1 || v > limit {
                throw NeuralError.malformed(file: file, offset: op.options?.position ?? 0, reason: "operator \(op.index): window parameter \(v)")
            }
            guard padding == 0 || padding == 1 else {
                throw NeuralError.malformed(file: file, offset: op.options?.position ?? 0, reason: "operator \(op.index): padding \(padding)")
            }
            return Window(kernelHeight: kernel.0, kernelWidth: kernel.1, strideHeight: strides.0, strideWidth: strides.1,
                          dilationHeight: dilation.0, dilationWidth: dilation.1, padding: padding == 0 ? .same : .valid)
        }
        func windowShape(_ x: (n: Int, h: Int, w: Int, c: Int), _ win: Window, channels: Int) -> [Int] {
            [x.n, windowOutput(x.h, kernel: win.kernelHeight, stride: win.strideHeight, dilation: win.dilationHeight, padding: win.padding),
             windowOutput(x.w, kernel: win.kernelWidth, stride: win.strideWidth, dilation: win.dilationWidth, padding: win.padding), channels]
        }
        func bias(_ op: TFLiteModel.Operator, at slot: Int, count: Int) throws(NeuralError) -> Int? {
            guard slot < op.inputs.count, op.inputs[slot] >= 0 else { return nil }
            let b = op.inputs[slot]
            guard let values = try constant(b), values.count == count else { throw bad(b, "bias must be \(count) constant values") }
            constantShapes[b] = [count]
            return b
        }
        func arity(_ op: TFLiteModel.Operator, _ inputs: ClosedRange<Int>, _ outputs: Int = 1) throws(NeuralError) {
            guard inputs.contains(op.inputs.count), op.outputs.count == outputs, !op.inputs.prefix(inputs.lowerBound).contains(-1) else {
                throw NeuralError.malformed(file: file, offset: op.options?.position ?? 0,
                                            reason: "operator \(op.index) (\(name(op))) has \(op.inputs.count) inputs / \(op.outputs.count) outputs")
            }
        }
        /// A RESHAPE's input and output after its arity and element-count checks (the shape itself
        /// is the output tensor's; the optional second input is ignored).
        func reshapeEnds(_ op: TFLiteModel.Operator) throws(NeuralError) -> (x: Int, y: Int) {
            try arity(op, 1...2)
            let x = op.inputs[0], y = op.outputs[0]
            guard tensors[x].elementCount == tensors[y].elementCount else { throw bad(y, "reshape changes the element count") }
            return (x, y)
        }
        let r = model.reader

        for op in model.operators {
            let unsupported = NeuralError.unsupportedOperator(file: file, index: op.index, name: name(op))
            guard let builtin = Builtin(rawValue: op.builtinCode) else { throw unsupported }
            // Data movement after a concatenation runs in Swift.
            if op.inputs.contains(where: { tailTensors.contains($0) }) || builtin == .concatenation {
                switch builtin {
                case .reshape:
                    let (x, y) = try reshapeEnds(op)
                    tail.append(.reshape(input: x, output: y))
                case .concatenation:
                    guard !op.inputs.isEmpty, !op.inputs.contains(-1), op.outputs.count == 1 else { throw unsupported }
                    let y = op.outputs[0]
                    let rank = shape(y).count
                    var axis = Int(try op.options.map { t throws(NeuralError) in try r.int32(t, 0) } ?? 0)
                    if axis < 0 { axis += rank }
                    guard axis >= 0, axis < rank else { throw bad(y, "concatenation axis \(axis)") }
                    if let t = op.options, try r.uint8(t, 1) != 0 { throw unsupported }
                    var total = 0
                    for x in op.inputs {
                        try operand(x); try requireFloat(x)
                        var s = shape(x)
                        guard s.count == rank else { throw bad(x, "rank differs from the concatenation's output") }
                        total += s[axis]
                        s[axis] = shape(y)[axis]
                        guard s == shape(y) else { throw bad(x, "shape \(shape(x)) does not concatenate into \(shape(y))") }
                        if constants[x] != nil { throw bad(x, "constant concatenation input") }
                    }
                    try expect(y, { var s = shape(y); s[axis] = total; return s }())
                    tail.append(.concatenation(inputs: op.inputs, output: y, axis: axis))
                default:
                    throw NeuralError.unsupportedOperator(file: file, index: op.index, name: "\(name(op)) after a concatenation")
                }
                for y in op.outputs { tailTensors.insert(y); produced.insert(y) }
                continue
            }

            switch builtin {
            case .dequantize:
                try arity(op, 1...1)
                let x = op.inputs[0], y = op.outputs[0]
                guard tensors[x].type == TFLiteModel.TensorType.float16.rawValue, let values = try model.floats(x) else {
                    throw NeuralError.unsupportedOperator(file: file, index: op.index, name: "DEQUANTIZE of a non-constant or non-float16 tensor")
                }
                guard values.count == tensors[y].elementCount else { throw bad(y, "dequantized size differs") }
                constants[y] = values
                continue   // folded at load: no node
            case .conv2D:
                try arity(op, 2...3)
                let x = op.inputs[0], f = op.inputs[1], y = op.outputs[0]
                let o = op.options
                let xs = try rank4(x), fs = try rank4(f)
                guard try constant(f) != nil else { throw bad(f, "filter must be constant") }
                guard xs.c % fs.c == 0, fs.n % (xs.c / fs.c) == 0 else { throw bad(f, "filter \(shape(f)) does not fit input \(shape(x))") }
                let win = try window(op, strides: (Int(try o.map { t throws(NeuralError) in try r.int32(t, 2) } ?? 0), Int(try o.map { t throws(NeuralError) in try r.int32(t, 1) } ?? 0)),
                                     padding: Int(try o.map { t throws(NeuralError) in try r.uint8(t, 0) } ?? 0), kernel: (fs.h, fs.w),
                                     dilation: (Int(try o.map { t throws(NeuralError) in try r.int32(t, 5, default: 1) } ?? 1), Int(try o.map { t throws(NeuralError) in try r.int32(t, 4, default: 1) } ?? 1)))
                let (lo, hi) = try activation(try o.map { t throws(NeuralError) in try r.uint8(t, 3) } ?? 0, op)
                try expect(y, windowShape(xs, win, channels: fs.n))
                let groups = xs.c / fs.c
                nodes.append(.convolution(input: x, filter: f, bias: try bias(op, at: 2, count: fs.n), output: y, window: win, groups: groups,
                                          groupInput: fs.c, groupOutput: fs.n / groups, min: lo, max: hi))
            case .depthwiseConv2D:
                try arity(op, 2...3)
                let x = op.inputs[0], f = op.inputs[1], y = op.outputs[0]
                let o = op.options
                let xs = try rank4(x), fs = try rank4(f)
                guard try constant(f) != nil else { throw bad(f, "filter must be constant") }
                guard fs.n == 1, fs.c % xs.c == 0 else { throw bad(f, "depthwise filter \(shape(f)) does not fit input \(shape(x))") }
                let win = try window(op, strides: (Int(try o.map { t throws(NeuralError) in try r.int32(t, 2) } ?? 0), Int(try o.map { t throws(NeuralError) in try r.int32(t, 1) } ?? 0)),
                                     padding: Int(try o.map { t throws(NeuralError) in try r.uint8(t, 0) } ?? 0), kernel: (fs.h, fs.w),
                                     dilation: (Int(try o.map { t throws(NeuralError) in try r.int32(t, 6, default: 1) } ?? 1), Int(try o.map { t throws(NeuralError) in try r.int32(t, 5, default: 1) } ?? 1)))
                let (lo, hi) = try activation(try o.map { t throws(NeuralError) in try r.uint8(t, 4) } ?? 0, op)
                try expect(y, windowShape(xs, win, channels: fs.c))
                nodes.append(.depthwise(input: x, filter: f, bias: try bias(op, at: 2, count: fs.c), output: y, window: win,
                                        multiplier: fs.c / xs.c, channels: xs.c, min: lo, max: hi))
            case .averagePool2D, .maxPool2D:
                try arity(op, 1...1)
                let x = op.inputs[0], y = op.outputs[0]
                guard let o = op.options else { throw NeuralError.malformed(file: file, offset: 0, reason: "operator \(op.index): pooling without options") }
                let xs = try rank4(x)
                let win = try window(op, strides: (Int(try r.int32(o, 2)), Int(try r.int32(o, 1))), padding: Int(try r.uint8(o, 0)),
                                     kernel: (Int(try r.int32(o, 4)), Int(try r.int32(o, 3))), dilation: (1, 1))
                let (lo, hi) = try activation(try r.uint8(o, 5), op)
                try expect(y, windowShape(xs, win, channels: xs.c))
                if builtin == .maxPool2D {
                    guard win.kernelHeight * win.kernelWidth > 1 else { throw unsupported }
                    nodes.append(.maxPool(input: x, output: y, window: win, min: lo, max: hi))
                } else if win.kernelHeight == xs.h, win.kernelWidth == xs.w, win.padding == .valid, lo == -.infinity, hi == .infinity {
                    nodes.append(.globalAveragePool(input: x, output: y))
                } else {
                    nodes.append(.averagePool(input: x, output: y, window: win, min: lo, max: hi))
                }
            case .add, .mul:
                try arity(op, 2...2)
                let a = op.inputs[0], b = op.inputs[1], y = op.outputs[0]
                let (lo, hi) = try activation(try op.options.map { t throws(NeuralError) in try r.uint8(t, 0) } ?? 0, op)
                let sa = shape(a), sb = shape(b), rank = max(sa.count, sb.count)
                var out: [Int] = []
                for k in 0..<rank {
                    let da = k < rank - sa.count ? 1 : sa[k - (rank - sa.count)]
                    let db = k < rank - sb.count ? 1 : sb[k - (rank - sb.count)]
                    guard da == db || da == 1 || db == 1 else { throw bad(y, "shapes \(sa) and \(sb) do not broadcast") }
                    out.append(max(da, db))
                }
                try expect(y, out)
                nodes.append(builtin == .add ? .add(a, b, output: y, min: lo, max: hi) : .multiply(a, b, output: y, min: lo, max: hi))
            case .pad:
                try arity(op, 2...2)
                let x = op.inputs[0], y = op.outputs[0]
                let rank = shape(x).count
                guard let p = try model.int32s(op.inputs[1]), p.count == 2 * rank, p.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
                    throw bad(op.inputs[1], "paddings must be \(rank)×2 constant non-negative int32 values")
                }
                let before = stride(from: 0, to: p.count, by: 2).map { p[$0] }, after = stride(from: 1, to: p.count, by: 2).map { p[$0] }
                try expect(y, (0..<rank).map { shape(x)[$0] + before[$0] + after[$0] })
                nodes.append(.pad(input: x, output: y, before: before, after: after))
            case .reshape:
                let (x, y) = try reshapeEnds(op)
                nodes.append(.reshape(input: x, output: y))
            case .resizeBilinear:
                try arity(op, 2...2)
                let x = op.inputs[0], y = op.outputs[0]
                let xs = try rank4(x)
                guard let size = try model.int32s(op.inputs[1]), size.count == 2 else { throw bad(op.inputs[1], "size must be 2 constant int32 values") }
                try expect(y, [xs.n, size[0], size[1], xs.c])
                let align = try op.options.map { t throws(NeuralError) in try r.bool(t, 2) } ?? false
                let half = try op.options.map { t throws(NeuralError) in try r.bool(t, 3) } ?? false
                guard !(align && half) else { throw bad(y, "align_corners with half_pixel_centers") }
                nodes.append(.resizeBilinear(input: x, output: y, alignCorners: align, halfPixelCenters: half))
            case .hardSwish, .logistic, .relu, .relu6, .reluN1To1:
                try arity(op, 1...1)
                let x = op.inputs[0], y = op.outputs[0]
                try expect(y, shape(x))
                switch builtin {
                case .hardSwish: nodes.append(.hardSwish(input: x, output: y))
                case .logistic: nodes.append(.sigmoid(input: x, output: y))
                case .relu: nodes.append(.clamp(input: x, output: y, min: 0, max: .infinity))
                case .relu6: nodes.append(.clamp(input: x, output: y, min: 0, max: 6))
                default: nodes.append(.clamp(input: x, output: y, min: -1, max: 1))
                }
            case .prelu:
                try arity(op, 2...2)
                let x = op.inputs[0], s = op.inputs[1], y = op.outputs[0]
                let xs = try rank4(x)
                guard let slope = try constant(s), slope.count == xs.c else { throw bad(s, "slope must be \(xs.c) constant values (one per channel)") }
                constantShapes[s] = [xs.c]
                try expect(y, shape(x))
                nodes.append(.prelu(input: x, slope: s, output: y))
            case .mean:
                try arity(op, 2...2)
                let x = op.inputs[0], y = op.outputs[0]
                let xs = try rank4(x)
                let keep = try op.options.map { t throws(NeuralError) in try r.bool(t, 0) } ?? false
                guard let axes = try model.int32s(op.inputs[1]), Set(axes) == [1, 2], keep else {
                    throw NeuralError.unsupportedOperator(file: file, index: op.index, name: "MEAN other than over H and W with keep_dims")
                }
                try expect(y, [xs.n, 1, 1, xs.c])
                nodes.append(.globalAveragePool(input: x, output: y))
            case .transposeConv, .custom:
                // TRANSPOSE_CONV: (output_shape, filter OHWI, input[, bias]) with TransposeConvOptions.
                // MediaPipe's Convolution2DTransposeBias: (input, filter OHWI, bias), custom options =
                // TfLiteTransposeConvParams {int32 padding (1 SAME, 2 VALID), int32 stride_width, int32 stride_height}.
                let x: Int, f: Int, y = op.outputs.first ?? -1
                let strideH: Int, strideW: Int, biasSlot: Int
                var lo: Float = -.infinity, hi: Float = .infinity
                if builtin == .custom {
                    guard op.customCode == "Convolution2DTransposeBias" else { throw unsupported }
                    try arity(op, 3...3)
                    guard let bytes = op.customOptions, bytes.count >= 12 else {
                        throw NeuralError.malformed(file: file, offset: op.customOptions?.lowerBound ?? 0, reason: "operator \(op.index): Convolution2DTransposeBias options are not 12 bytes")
                    }
                    x = op.inputs[0]; f = op.inputs[1]; biasSlot = 2
                    strideW = Int(try r.i32(bytes.lowerBound + 4)); strideH = Int(try r.i32(bytes.lowerBound + 8))
                } else {
                    try arity(op, 3...4)
                    x = op.inputs[2]; f = op.inputs[1]; biasSlot = 3
                    strideW = Int(try op.options.map { t throws(NeuralError) in try r.int32(t, 1) } ?? 0)
                    strideH = Int(try op.options.map { t throws(NeuralError) in try r.int32(t, 2) } ?? 0)
                    (lo, hi) = try activation(try op.options.map { t throws(NeuralError) in try r.uint8(t, 3) } ?? 0, op)
                }
                let xs = try rank4(x), fs = try rank4(f), ys = try rank4(y)
                guard try constant(f) != nil, fs.c == xs.c, ys.c == fs.n, ys.n == xs.n else { throw bad(f, "filter \(shape(f)) does not fit input \(shape(x)) → \(shape(y))") }
                guard (1...(1 << 12)).contains(strideH), (1...(1 << 12)).contains(strideW) else {
                    throw NeuralError.malformed(file: file, offset: 0, reason: "operator \(op.index): stride \(strideH)×\(strideW)")
                }
                // Full output is stride·(in−1)+kernel; the declared size trims it evenly (the extra
                // row/column at the end, as TFLite's ComputePaddingWithOffset) or extends it.
                func split(_ full: Int, _ out: Int, _ stride: Int) throws(NeuralError) -> (Int, Int, Int) {
                    let total = full - out
                    guard total <= 1 << 16 else { throw bad(y, "transposed-convolution output \(shape(y)) crops \(total) rows or columns") }
                    if total >= 0 { return (total / 2, total - total / 2, 0) }
                    guard -total < stride else { throw bad(y, "transposed-convolution output \(shape(y)) is larger than its input allows") }
                    return (0, 0, -total)
                }
                let (top, bottom, adjH) = try split(strideH * (xs.h - 1) + fs.h, ys.h, strideH)
                let (left, right, adjW) = try split(strideW * (xs.w - 1) + fs.w, ys.w, strideW)
                nodes.append(.deconvolution(input: x, filter: f, bias: try bias(op, at: biasSlot, count: fs.n), output: y,
                                            padding: (top, right, bottom, left), adjustment: (adjH, adjW), kernel: (fs.h, fs.w),
                                            stride: (strideH, strideW), inputChannels: xs.c, outputChannels: fs.n, min: lo, max: hi))
            case .concatenation:
                throw unsupported   // handled above
            }
            // Activations the node reads must already exist, and be float32.
            for t in op.inputs.prefix(builtin == .transposeConv ? 4 : 2) where t >= 0 && tensors[t].type != TFLiteModel.TensorType.int32.rawValue {
                try operand(t)
                if constants[t] == nil { try requireFloat(t) }
            }
            for y in op.outputs {
                try requireFloat(y)
                guard !produced.contains(y), constants[y] == nil else { throw bad(y, "written twice") }
                produced.insert(y)
            }
        }

        for t in model.outputs where !produced.contains(t) {
            throw bad(t, "model output is never computed")
        }
        // XNNPACK hands back every model output it computes and every tensor the Swift tail reads.
        var xnnOutputs: [Int] = []
        for t in model.outputs where !tailTensors.contains(t) && !xnnOutputs.contains(t) { xnnOutputs.append(t) }
        for node in tail {
            let reads: [Int]
            switch node {
            case let .reshape(x, _): reads = [x]
            case let .concatenation(xs, _, _): reads = xs
            }
            // The tail reads the model input directly; everything else XNNPACK computed.
            for t in reads where t != input && !tailTensors.contains(t) && !xnnOutputs.contains(t) { xnnOutputs.append(t) }
        }
        guard !xnnOutputs.contains(input) else { throw bad(input, "model input is also a model output") }
        self.nodes = nodes
        self.tail = tail
        self.constants = constants
        self.constantShapes = constantShapes
        self.xnnOutputs = xnnOutputs
    }
}
