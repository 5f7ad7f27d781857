import Foundation

/// BlazeFace's raw outputs to face detections, as MediaPipe's `face_detection.pbtxt` configures
/// `TensorsToDetectionsCalculator` and `NonMaxSuppressionCalculator` for the short-range model.
///
/// - Boxes (`regressors`, 896 × 16, `reverse_output_order`): x-centre, y-centre, width, height, then 6
///   keypoints (x, y), all in tensor pixels relative to the anchor: value / 128 + anchor centre (the
///   anchors are 1 × 1, so sizes are value / 128).
/// - Scores (`classificators`, 896 × 1): logits clipped to ±`scoreClip` (100) then the sigmoid;
///   kept when ≥ `minScore` (0.5).
/// - Weighted non-maximum suppression (IoU threshold `suppressionIoU` 0.3): in descending score
///   order, the best remaining detection absorbs every remaining one overlapping it by more than the
///   threshold (itself included); its box and keypoints become their score-weighted mean, its score
///   stays its own.
/// - Letterbox removal: from tensor units to the padded ROI, then to the image.
public struct BlazeFaceDecoder: Sendable {
    public var anchors: SSDAnchors = .blazeFaceShortRange
    public var inputSize: Float = 128
    public var minScore: Float = 0.5
    public var scoreClip: Float = 100
    public var suppressionIoU: Float = 0.3
    public static let keypointCount = 6

    public init() {}

    /// Detections in unit tensor coordinates (before letterbox removal), best first.
    public func decode(boxes: [Float], scores: [Float]) -> [FaceDetection] {
        let n = anchors.centers.count, stride = 4 + 2 * Self.keypointCount
        guard boxes.count >= n * stride, scores.count >= n else { return [] }
        var raw: [FaceDetection] = []
        for i in 0..<n {
            let logit = min(max(scores[i], -scoreClip), scoreClip)
            let score = 1 / (1 + expf(-logit))
            guard score >= minScore else { continue }
            let b = i * stride, a = anchors.centers[i]
            let cx = boxes[b] / inputSize + a.x, cy = boxes[b + 1] / inputSize + a.y
            let w = boxes[b + 2] / inputSize, h = boxes[b + 3] / inputSize
            var kp: [(x: Float, y: Float)] = []
            for k in 0..<Self.keypointCount {
                kp.append((boxes[b + 4 + 2 * k] / inputSize + a.x, boxes[b + 5 + 2 * k] / inputSize + a.y))
            }
            raw.append(FaceDetection(score: score, xMin: cx - w / 2, yMin: cy - h / 2, width: w, height: h, keypoints: kp))
        }
        return weightedNMS(raw)
    }

    /// MediaPipe's weighted NMS (see the type's doc). Ties in score keep the earlier anchor first.
    public func weightedNMS(_ detections: [FaceDetection]) -> [FaceDetection] {
        var remaining = detections.indices.sorted { detections[$0].score > detections[$1].score || (detections[$0].score == detections[$1].score && $0 < $1) }
            .map { detections[$0] }
        var out: [FaceDetection] = []
        while let top = remaining.first {
            // The best one always absorbs itself (so the loop ends even for an empty box).
            var absorbed: [FaceDetection] = [top], rest: [FaceDetection] = []
            for d in remaining.dropFirst() {
                if top.iou(d) > suppressionIoU { absorbed.append(d) } else { rest.append(d) }
            }
            var merged = top
            let total = absorbed.reduce(Float(0)) { $0 + $1.score }
            if absorbed.count > 1, total > 0 {
                var x0: Float = 0, y0: Float = 0, x1: Float = 0, y1: Float = 0
                var kp = [(x: Float, y: Float)](repeating: (0, 0), count: top.keypoints.count)
                for d in absorbed {
                    x0 += d.xMin * d.score; y0 += d.yMin * d.score
                    x1 += (d.xMin + d.width) * d.score; y1 += (d.yMin + d.height) * d.score
                    for k in kp.indices where k < d.keypoints.count {
                        kp[k].x += d.keypoints[k].x * d.score; kp[k].y += d.keypoints[k].y * d.score
                    }
                }
                merged.xMin = x0 / total; merged.yMin = y0 / total
                merged.width = x1 / total - merged.xMin; merged.height = y1 / total - merged.yMin
                merged.keypoints = kp.map { ($0.x / total, $0.y / total) }
            }
            out.append(merged)
            remaining = rest
        }
        return out
    }

    /// `d` (unit coordinates of a letterboxed tensor made from `rect`, unrotated) in unit image coordinates.
    public static func project(_ d: FaceDetection, padX: Double, padY: Double, rect: RotatedRect,
                               imageWidth: Int, imageHeight: Int) -> FaceDetection {
        func map(_ x: Float, _ y: Float) -> (x: Float, y: Float) {
            // Undo the letterbox: tensor unit → unit of the original (unpadded) ROI, then ROI → image.
            let u = (Double(x) - padX) / (1 - 2 * padX), v = (Double(y) - padY) / (1 - 2 * padY)
            let inner = RotatedRect(centerX: rect.centerX, centerY: rect.centerY,
                                    width: rect.width * (1 - 2 * padX), height: rect.height * (1 - 2 * padY), rotation: rect.rotation)
            let p = inner.point(u: u, v: v)
            return (Float(p.x / Double(imageWidth)), Float(p.y / Double(imageHeight)))
        }
        var o = d
        let a = map(d.xMin, d.yMin), b = map(d.xMin + d.width, d.yMin + d.height)
        o.xMin = a.x; o.yMin = a.y; o.width = b.x - a.x; o.height = b.y - a.y
        o.keypoints = d.keypoints.map { map($0.x, $0.y) }
        return o
    }
}
