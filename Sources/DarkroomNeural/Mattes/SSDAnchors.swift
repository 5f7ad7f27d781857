/// SSD anchor centres as MediaPipe's `SsdAnchorsCalculator` makes them with `fixed_anchor_size: true`
/// (every anchor 1 × 1, so only the centre matters), in unit tensor coordinates.
///
/// Consecutive layers with the same stride share one feature map of `ceil(input / stride)` cells;
/// each layer adds 2 anchors per cell (aspect ratio 1 and the interpolated scale), emitted cell by
/// cell, row-major, centres at `(x + 0.5) / featureWidth`. BlazeFace short range (128 × 128, strides
/// 8, 16, 16, 16): 16 × 16 × 2 + 8 × 8 × 6 = 896 anchors.
public struct SSDAnchors: Sendable, Equatable {
    public let centers: [(x: Float, y: Float)]

    public static func == (a: SSDAnchors, b: SSDAnchors) -> Bool {
        a.centers.count == b.centers.count && zip(a.centers, b.centers).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    public init(inputWidth: Int, inputHeight: Int, strides: [Int], anchorsPerLayer: Int = 2) {
        var c: [(x: Float, y: Float)] = []
        var layer = 0
        while layer < strides.count {
            var last = layer
            while last < strides.count, strides[last] == strides[layer] { last += 1 }
            let perCell = (last - layer) * anchorsPerLayer
            let stride = strides[layer]
            let fw = (inputWidth + stride - 1) / stride, fh = (inputHeight + stride - 1) / stride
            for y in 0..<fh {
                for x in 0..<fw {
                    let cx = (Float(x) + 0.5) / Float(fw), cy = (Float(y) + 0.5) / Float(fh)
                    for _ in 0..<perCell { c.append((cx, cy)) }
                }
            }
            layer = last
        }
        centers = c
    }

    /// The 896 anchors of `face_detection_short_range.tflite`.
    public static let blazeFaceShortRange = SSDAnchors(inputWidth: 128, inputHeight: 128, strides: [8, 16, 16, 16])
}
