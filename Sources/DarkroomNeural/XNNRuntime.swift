import CXNNPACK

/// XNNPACK is initialised once per process (the call is idempotent; its status is kept).
private let xnnInitialization: UInt32 = xnn_initialize(nil).rawValue

/// Owns one XNNPACK runtime built from a `NeuralGraph`: the static weights (which must outlive it),
/// the thread pool, and the external input/output buffers bound to it once, at creation. `invoke`
/// is not thread-safe; `NeuralModel` serialises calls. This file and `NeuralModel` are the only
/// places that hold C pointers.
final class XNNRuntime {
    /// Floats of slack after every external buffer: XNNPACK kernels may read up to XNN_EXTRA_BYTES
    /// (16) past the end.
    private static let slack = 16

    private let file: String
    private var runtime: xnn_runtime_t?
    private var threadpool: pthreadpool_t?
    private var staticData: [UnsafeMutableBufferPointer<Float>] = []
    let input: UnsafeMutableBufferPointer<Float>
    let inputCount: Int
    /// One buffer per `graph.xnnOutputs` entry (same order).
    let outputs: [UnsafeMutableBufferPointer<Float>]
    let outputCounts: [Int]

    private func check(_ status: xnn_status, _ call: String) throws(NeuralError) {
        guard status == xnn_status_success else { throw .runtime(file: file, call: call, status: Int(status.rawValue)) }
    }

    init(graph: NeuralGraph, threads: Int) throws(NeuralError) {
        file = graph.file
        let tensors = graph.model.tensors
        inputCount = tensors[graph.input].elementCount
        input = .allocate(capacity: inputCount + Self.slack)
        input.initialize(repeating: 0)
        outputCounts = graph.xnnOutputs.map { tensors[$0].elementCount }
        outputs = outputCounts.map { count in
            let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: count + Self.slack)
            b.initialize(repeating: 0)
            return b
        }
        guard xnnInitialization == xnn_status_success.rawValue else {
            throw .runtime(file: file, call: "xnn_initialize", status: Int(xnnInitialization))
        }

        var subgraph: xnn_subgraph_t?
        let externalCount = UInt32(1 + graph.xnnOutputs.count)
        try check(xnn_create_subgraph(externalCount, 0, &subgraph), "xnn_create_subgraph")
        defer { xnn_delete_subgraph(subgraph) }

        var ids: [Int: UInt32] = [:]
        func value(_ t: Int) throws(NeuralError) -> UInt32 {
            if let id = ids[t] { return id }
            let dims = (graph.constantShapes[t] ?? tensors[t].shape)
            // XNNPACK handles at most 6 dimensions, and an empty tensor is no use to any node.
            guard dims.count <= 6, dims.allSatisfy({ $0 >= 1 }) else {
                throw .unsupportedTensor(file: file, tensor: tensors[t].name, reason: "shape \(dims) (XNNPACK needs 0–6 dimensions, each ≥ 1)")
            }
            var data: UnsafeRawPointer? = nil
            var external = XNN_INVALID_VALUE_ID
            var flags: UInt32 = 0
            if t == graph.input {
                external = 0; flags = UInt32(XNN_VALUE_FLAG_EXTERNAL_INPUT)
            } else if let k = graph.xnnOutputs.firstIndex(of: t) {
                external = UInt32(1 + k); flags = UInt32(XNN_VALUE_FLAG_EXTERNAL_OUTPUT)
            } else if let values = graph.constants[t] {
                let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(values.count, 1))
                _ = buffer.initialize(from: values)
                staticData.append(buffer)
                data = UnsafeRawPointer(buffer.baseAddress)
            }
            var id: UInt32 = 0
            let status = dims.map { $0 }.withUnsafeBufferPointer { d in
                xnn_define_tensor_value(subgraph, xnn_datatype_fp32, d.count, d.baseAddress, data, external, flags, &id)
            }
            try check(status, "xnn_define_tensor_value(\(tensors[t].name))")
            ids[t] = id
            return id
        }
        func optional(_ t: Int?) throws(NeuralError) -> UInt32 {
            guard let t else { return XNN_INVALID_VALUE_ID }
            return try value(t)
        }
        let same = UInt32(XNN_FLAG_TENSORFLOW_SAME_PADDING)

        for node in graph.nodes {
            switch node {
            case let .convolution(x, f, b, y, w, groups, gi, go, lo, hi):
                try check(xnn_define_convolution_2d(
                    subgraph, 0, 0, 0, 0, UInt32(w.kernelHeight), UInt32(w.kernelWidth), UInt32(w.strideHeight), UInt32(w.strideWidth),
                    UInt32(w.dilationHeight), UInt32(w.dilationWidth), UInt32(groups), gi, go, lo, hi,
                    try value(x), try value(f), try optional(b), try value(y), w.padding == .same ? same : 0), "xnn_define_convolution_2d")
            case let .depthwise(x, f, b, y, w, multiplier, channels, lo, hi):
                try check(xnn_define_depthwise_convolution_2d(
                    subgraph, 0, 0, 0, 0, UInt32(w.kernelHeight), UInt32(w.kernelWidth), UInt32(w.strideHeight), UInt32(w.strideWidth),
                    UInt32(w.dilationHeight), UInt32(w.dilationWidth), UInt32(multiplier), channels, lo, hi,
                    try value(x), try value(f), try optional(b), try value(y), w.padding == .same ? same : 0), "xnn_define_depthwise_convolution_2d")
            case let .deconvolution(x, f, b, y, pad, adjustment, kernel, stride, ci, co, lo, hi):
                try check(xnn_define_deconvolution_2d(
                    subgraph, UInt32(pad.top), UInt32(pad.right), UInt32(pad.bottom), UInt32(pad.left),
                    UInt32(adjustment.height), UInt32(adjustment.width), UInt32(kernel.height), UInt32(kernel.width),
                    UInt32(stride.height), UInt32(stride.width), 1, 1, 1, ci, co, lo, hi,
                    try value(x), try value(f), try optional(b), try value(y), 0), "xnn_define_deconvolution_2d")
            case let .averagePool(x, y, w, lo, hi):
                try check(xnn_define_average_pooling_2d(
                    subgraph, 0, 0, 0, 0, UInt32(w.kernelHeight), UInt32(w.kernelWidth), UInt32(w.strideHeight), UInt32(w.strideWidth),
                    lo, hi, try value(x), try value(y), w.padding == .same ? same : 0), "xnn_define_average_pooling_2d")
            case let .maxPool(x, y, w, lo, hi):
                try check(xnn_define_max_pooling_2d(
                    subgraph, 0, 0, 0, 0, UInt32(w.kernelHeight), UInt32(w.kernelWidth), UInt32(w.strideHeight), UInt32(w.strideWidth),
                    1, 1, lo, hi, try value(x), try value(y), w.padding == .same ? same : 0), "xnn_define_max_pooling_2d")
            case let .globalAveragePool(x, y):
                try check(xnn_define_global_average_pooling_2d(subgraph, -.infinity, .infinity, try value(x), try value(y), 0),
                          "xnn_define_global_average_pooling_2d")
            case let .add(a, b, y, lo, hi):
                try check(xnn_define_add2(subgraph, lo, hi, try value(a), try value(b), try value(y), 0), "xnn_define_add2")
            case let .multiply(a, b, y, lo, hi):
                try check(xnn_define_multiply2(subgraph, lo, hi, try value(a), try value(b), try value(y), 0), "xnn_define_multiply2")
            case let .pad(x, y, before, after):
                let xv = try value(x), yv = try value(y)
                let status = before.withUnsafeBufferPointer { pre in
                    after.withUnsafeBufferPointer { post in
                        xnn_define_static_constant_pad(subgraph, pre.baseAddress, post.baseAddress, 0, xv, yv, 0)
                    }
                }
                try check(status, "xnn_define_static_constant_pad")
            case let .reshape(x, y):
                let shape = tensors[y].shape
                let xv = try value(x), yv = try value(y)
                try check(shape.withUnsafeBufferPointer { xnn_define_static_reshape(subgraph, $0.count, $0.baseAddress, xv, yv, 0) },
                          "xnn_define_static_reshape")
            case let .resizeBilinear(x, y, align, half):
                let shape = tensors[y].shape
                let flags = align ? UInt32(XNN_FLAG_ALIGN_CORNERS) : (half ? 0 : UInt32(XNN_FLAG_TENSORFLOW_LEGACY_MODE))
                try check(xnn_define_static_resize_bilinear_2d(subgraph, shape[1], shape[2], try value(x), try value(y), flags),
                          "xnn_define_static_resize_bilinear_2d")
            case let .hardSwish(x, y):
                try check(xnn_define_hardswish(subgraph, try value(x), try value(y), 0), "xnn_define_hardswish")
            case let .sigmoid(x, y):
                try check(xnn_define_sigmoid(subgraph, try value(x), try value(y), 0), "xnn_define_sigmoid")
            case let .clamp(x, y, lo, hi):
                try check(xnn_define_clamp(subgraph, lo, hi, try value(x), try value(y), 0), "xnn_define_clamp")
            case let .prelu(x, s, y):
                try check(xnn_define_prelu(subgraph, try value(x), try value(s), try value(y), 0), "xnn_define_prelu")
            }
        }
        // Values an XNNPACK runtime needs even when no node touches them (an unused input).
        _ = try value(graph.input)
        for t in graph.xnnOutputs { _ = try value(t) }

        if threads > 1 {
            threadpool = pthreadpool_create(threads)
        }
        try check(xnn_create_runtime_v2(subgraph, threadpool, 0, &runtime), "xnn_create_runtime_v2")
        var externals = [xnn_external_value(id: 0, data: UnsafeMutableRawPointer(input.baseAddress))]
        for (k, b) in outputs.enumerated() {
            externals.append(xnn_external_value(id: UInt32(1 + k), data: UnsafeMutableRawPointer(b.baseAddress)))
        }
        try check(xnn_setup_runtime(runtime, externals.count, externals), "xnn_setup_runtime")
    }

    /// Runs the graph on `values` (already checked to hold `inputCount` floats); results land in `outputs`.
    func invoke(_ values: [Float]) throws(NeuralError) {
        _ = UnsafeMutableBufferPointer(rebasing: input[0..<inputCount]).update(fromContentsOf: values)
        try check(xnn_invoke_runtime(runtime), "xnn_invoke_runtime")
    }

    deinit {
        if let runtime { xnn_delete_runtime(runtime) }
        if let threadpool { pthreadpool_destroy(threadpool) }
        for b in staticData { b.deallocate() }
        input.deallocate()
        for b in outputs { b.deallocate() }
    }
}
