import Foundation

/// The crop Face Mesh runs on, made from a face detection as MediaPipe's
/// `face_detection_front_detection_to_roi.pbtxt` does: `DetectionsToRectsCalculator` (the detection's
/// box, turned so the line from keypoint 0 (right eye) to keypoint 1 (left eye) is horizontal) then
/// `RectTransformationCalculator` (`square_long`: both sides = the longer side in pixels, then scaled
/// by `scale` = 1.5).
public enum FaceMeshROI {
    public static let scale = 1.5

    /// The rotated crop, in image pixels, for `d` (unit image coordinates) on a `width × height` image.
    public static func rect(for d: FaceDetection, imageWidth: Int, imageHeight: Int) -> RotatedRect {
        let w = Double(imageWidth), h = Double(imageHeight)
        var rotation = 0.0
        if d.keypoints.count >= 2 {
            let x0 = Double(d.keypoints[0].x) * w, y0 = Double(d.keypoints[0].y) * h
            let x1 = Double(d.keypoints[1].x) * w, y1 = Double(d.keypoints[1].y) * h
            rotation = normalized(0 - atan2(-(y1 - y0), x1 - x0))
        }
        let long = max(Double(d.width) * w, Double(d.height) * h) * scale
        return RotatedRect(centerX: (Double(d.xMin) + Double(d.width) / 2) * w,
                           centerY: (Double(d.yMin) + Double(d.height) / 2) * h,
                           width: long, height: long, rotation: rotation)
    }

    /// An angle in −π…π.
    static func normalized(_ a: Double) -> Double {
        a - 2 * Double.pi * ((a + Double.pi) / (2 * Double.pi)).rounded(.down)
    }
}
