import Foundation

/// A TFLite model (float32, or float16 weights) read by our own flatbuffer reader and executed by
/// XNNPACK on the CPU. The graph and its runtime are built once in `init`; `run` reuses them.
/// Thread-safe: concurrent `run` calls are serialised by an internal lock.
public final class NeuralModel: @unchecked Sendable {
    /// The model's name (its file name, or the name given with the bytes); errors carry it.
    public let name: String
    /// The input tensor's shape, NHWC, e.g. [1, 256, 256, 3].
    public let inputShape: [Int]
    /// The output tensors' shapes, in the model's output order.
    public let outputShapes: [[Int]]
    /// The output tensors' names, in the model's output order.
    public let outputNames: [String]

    private let graph: NeuralGraph
    private let runtime: XNNRuntime
    private let lock = NSLock()

    /// Loads the `.tflite` file at `path`; `threads` > 1 gives XNNPACK a thread pool of that size.
    public convenience init(path: String, threads: Int = 1) throws(NeuralError) {
        let name = (path as NSString).lastPathComponent
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw .unreadable(file: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(bytes: [UInt8](data), name: name, threads: threads)
    }

    /// Loads a model from its flatbuffer bytes; `name` labels errors.
    public init(bytes: [UInt8], name: String, threads: Int = 1) throws(NeuralError) {
        self.name = name
        let model = try TFLiteModel(bytes: bytes, file: name)
        graph = try NeuralGraph(model: model)
        runtime = try XNNRuntime(graph: graph, threads: max(1, min(threads, 64)))
        inputShape = model.tensors[graph.input].shape
        outputShapes = model.outputs.map { model.tensors[$0].shape }
        outputNames = model.outputs.map { model.tensors[$0].name }
    }

    /// Runs the model. `input`: NHWC float32, `inputShape`'s product of values (pixel scaling as the
    /// model expects, e.g. [0, 1] for selfie segmentation). Returns one array per output, in
    /// `outputNames` order, each holding its shape's product of float32 values.
    public func run(_ input: [Float]) throws(NeuralError) -> [[Float]] {
        guard input.count == runtime.inputCount else {
            throw .inputSize(file: name, expected: runtime.inputCount, got: input.count)
        }
        lock.lock()
        defer { lock.unlock() }
        try runtime.invoke(input)
        var values: [Int: [Float]] = [graph.input: input]
        for (k, t) in graph.xnnOutputs.enumerated() {
            values[t] = Array(UnsafeMutableBufferPointer(rebasing: runtime.outputs[k][0..<runtime.outputCounts[k]]))
        }
        let tensors = graph.model.tensors
        for node in graph.tail {
            switch node {
            case let .reshape(x, y):
                values[y] = values[x]
            case let .concatenation(xs, y, axis):
                // Row-major: each input contributes a contiguous run of shape[axis...] values per
                // index of the dimensions before `axis`.
                let outer = tensors[y].shape[..<axis].reduce(1, *)
                var out: [Float] = []
                out.reserveCapacity(tensors[y].elementCount)
                let parts = xs.map { values[$0] ?? [] }
                let runs = xs.map { tensors[$0].shape[axis...].reduce(1, *) }
                for o in 0..<outer {
                    for (part, run) in zip(parts, runs) { out.append(contentsOf: part[(o * run)..<((o + 1) * run)]) }
                }
                values[y] = out
            }
        }
        return graph.model.outputs.map { values[$0] ?? [] }
    }
}
