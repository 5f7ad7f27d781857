/// One face found by BlazeFace, in unit image coordinates (0…1 across the image's width and height).
public struct FaceDetection: Sendable, Equatable {
    /// Sigmoid of the model's score logit (0…1).
    public var score: Float
    public var xMin: Float, yMin: Float, width: Float, height: Float
    /// Right eye, left eye, nose tip, mouth centre, right ear, left ear (the subject's right and left).
    public var keypoints: [(x: Float, y: Float)]

    public init(score: Float, xMin: Float, yMin: Float, width: Float, height: Float, keypoints: [(x: Float, y: Float)]) {
        self.score = score; self.xMin = xMin; self.yMin = yMin; self.width = width; self.height = height
        self.keypoints = keypoints
    }

    public static func == (a: FaceDetection, b: FaceDetection) -> Bool {
        a.score == b.score && a.xMin == b.xMin && a.yMin == b.yMin && a.width == b.width && a.height == b.height
            && a.keypoints.count == b.keypoints.count
            && zip(a.keypoints, b.keypoints).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    /// Intersection over union of the two boxes (0 when either is empty).
    public func iou(_ o: FaceDetection) -> Float {
        let x0 = max(xMin, o.xMin), y0 = max(yMin, o.yMin)
        let x1 = min(xMin + width, o.xMin + o.width), y1 = min(yMin + height, o.yMin + o.height)
        let inter = max(0, x1 - x0) * max(0, y1 - y0)
        let union = width * height + o.width * o.height - inter
        return union > 0 ? inter / union : 0
    }
}
