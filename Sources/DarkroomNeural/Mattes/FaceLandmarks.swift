import Foundation

/// Face Mesh landmarks of one face in image pixel coordinates (x right, y down; `z` in the crop's
/// pixel scale, smaller = nearer), with the model's face-presence probability.
public struct FaceLandmarks: Sendable {
    public var points: [(x: Double, y: Double, z: Double)]
    public var presence: Float

    public init(points: [(x: Double, y: Double, z: Double)], presence: Float) {
        self.points = points; self.presence = presence
    }

    /// The polygon through landmarks `indices` (image pixels); empty if any index is missing.
    public func polygon(_ indices: [Int]) -> [(x: Double, y: Double)] {
        guard indices.allSatisfy({ $0 >= 0 && $0 < points.count }) else { return [] }
        return indices.map { (points[$0].x, points[$0].y) }
    }

    /// `face_landmark.tflite`'s landmark tensor (468 × (x, y, z) in 192-px crop pixels) mapped back
    /// through `rect` to the image (MediaPipe's `LandmarkProjectionCalculator`); `presenceLogit` is
    /// the face-flag output before its sigmoid.
    public static func projected(_ tensor: [Float], presenceLogit: Float, rect: RotatedRect, cropSize: Int = 192) -> FaceLandmarks {
        let n = tensor.count / 3
        var pts: [(x: Double, y: Double, z: Double)] = []
        pts.reserveCapacity(n)
        let s = Double(cropSize)
        for i in 0..<n {
            let p = rect.point(u: Double(tensor[3 * i]) / s, v: Double(tensor[3 * i + 1]) / s)
            pts.append((p.x, p.y, Double(tensor[3 * i + 2]) / s * rect.width))
        }
        let presence = 1 / (1 + expf(-presenceLogit))
        return FaceLandmarks(points: pts, presence: presence)
    }
}
