/// MediaPipe's `ImageToTensorCalculator` on the CPU (its OpenCV converter): the part of an image
/// inside a `RotatedRect` resampled to a `width × height` float tensor (NHWC, RGB), values mapped
/// linearly from 0…255 to `range`.
///
/// Geometry as OpenCV's `warpPerspective` with the rectangle's corners sent to the tensor's corners:
/// tensor pixel (i, j) samples the image at `rect.point(u: i / width, v: j / height)` in OpenCV's
/// convention (pixel centres at integer coordinates), bilinearly. Outside the image: `.zero` gives
/// the value of a black pixel (the range's minimum), `.replicate` the nearest edge pixel.
public enum ImageToTensor {
    public enum Border: Sendable { case zero, replicate }

    /// The tensor for `rect` of `image`; `range` is what 0 and 255 become.
    public static func tensor(_ image: MatteInputImage, rect: RotatedRect, width: Int, height: Int,
                              range: ClosedRange<Float>, border: Border) -> [Float] {
        var out = [Float](repeating: 0, count: width * height * 3)
        let scale = (range.upperBound - range.lowerBound) / 255, offset = range.lowerBound
        let w = image.width, h = image.height
        image.pixels.withUnsafeBufferPointer { px in
            for j in 0..<height {
                for i in 0..<width {
                    let p = rect.point(u: Double(i) / Double(width), v: Double(j) / Double(height))
                    let x0 = Int((p.x).rounded(.down)), y0 = Int((p.y).rounded(.down))
                    let fx = Float(p.x - Double(x0)), fy = Float(p.y - Double(y0))
                    let o = (j * width + i) * 3
                    for c in 0..<3 {
                        @inline(__always) func at(_ x: Int, _ y: Int) -> Float {
                            switch border {
                            case .zero:
                                guard x >= 0, x < w, y >= 0, y < h else { return 0 }
                                return Float(px[(y * w + x) * 3 + c])
                            case .replicate:
                                let cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1)
                                return Float(px[(cy * w + cx) * 3 + c])
                            }
                        }
                        let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
                        let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
                        out[o + c] = (top * (1 - fy) + bottom * fy) * scale + offset
                    }
                }
            }
        }
        return out
    }
}
