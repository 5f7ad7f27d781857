import Foundation

/// A rectangle in image pixel coordinates, turned by `rotation` radians about its centre (positive =
/// clockwise on screen, since y points down), as MediaPipe's `NormalizedRect` once multiplied by the
/// image size. Pixel coordinates follow OpenCV: pixel (i, j) covers [i, i+1) × [j, j+1) and the
/// image spans 0…width × 0…height.
public struct RotatedRect: Sendable, Equatable {
    public var centerX: Double
    public var centerY: Double
    public var width: Double
    public var height: Double
    public var rotation: Double

    public init(centerX: Double, centerY: Double, width: Double, height: Double, rotation: Double = 0) {
        self.centerX = centerX; self.centerY = centerY; self.width = width; self.height = height; self.rotation = rotation
    }

    /// The whole image.
    public static func image(width: Int, height: Int) -> RotatedRect {
        RotatedRect(centerX: Double(width) / 2, centerY: Double(height) / 2, width: Double(width), height: Double(height))
    }

    /// The image point at unit coordinates (u, v) of the rectangle ((0, 0) its top-left corner
    /// before rotation, (1, 1) its bottom-right).
    @inline(__always)
    public func point(u: Double, v: Double) -> (x: Double, y: Double) {
        let dx = (u - 0.5) * width, dy = (v - 0.5) * height
        let c = cos(rotation), s = sin(rotation)
        return (centerX + c * dx - s * dy, centerY + s * dx + c * dy)
    }

    /// The unit coordinates of image point (x, y) (inverse of `point(u:v:)`).
    public func unit(x: Double, y: Double) -> (u: Double, v: Double) {
        let dx = x - centerX, dy = y - centerY
        let c = cos(rotation), s = sin(rotation)
        return ((c * dx + s * dy) / width + 0.5, (-s * dx + c * dy) / height + 0.5)
    }

    /// MediaPipe's `PadRoi` (ImageToTensorCalculator, `keep_aspect_ratio: true`): the rectangle grown
    /// along one axis to the tensor's aspect ratio, and the padding that adds on each side as a
    /// fraction of the tensor (left/right, top/bottom), used to undo the letterbox.
    public func letterboxed(tensorWidth: Int, tensorHeight: Int) -> (rect: RotatedRect, padX: Double, padY: Double) {
        let tensorAspect = Double(tensorHeight) / Double(tensorWidth)
        let roiAspect = height / width
        var r = self
        if tensorAspect > roiAspect {
            r.height = width * tensorAspect
            return (r, 0, (1 - roiAspect / tensorAspect) / 2)
        } else {
            r.width = height / tensorAspect
            return (r, (1 - tensorAspect / roiAspect) / 2, 0)
        }
    }
}
