import Foundation
import Testing
@testable import DarkroomNeural

/// The pure post-processing of the semantic mattes: anchors, BlazeFace decoding and weighted NMS,
/// the Face Mesh crop, polygon coverage, the guided filter. Expectations are exact where the maths
/// gives them (areas, counts, box means) or come from MediaPipe's graph configuration.
@Suite struct MatteGeometryTests {
    @Test func blazeFaceShortRangeHas896AnchorsInMediaPipesOrder() {
        let a = SSDAnchors.blazeFaceShortRange.centers
        #expect(a.count == 896)
        // 16 × 16 cells × 2 anchors (stride 8), then 8 × 8 cells × 6 anchors (three stride-16 layers).
        #expect(a[0] == (0.5 / 16, 0.5 / 16) && a[1] == a[0] && a[2] == (1.5 / 16, 0.5 / 16))
        #expect(a[32] == (0.5 / 16, 1.5 / 16))
        #expect(a[511] == (15.5 / 16, 15.5 / 16))
        #expect((512..<518).allSatisfy { a[$0] == (0.5 / 8, 0.5 / 8) } && a[518] == (1.5 / 8, 0.5 / 8))
        #expect(a[895] == (7.5 / 8, 7.5 / 8))
    }

    /// Raw tensors with one confident anchor decode to a box centred on that anchor.
    @Test func decodesABoxAroundItsAnchor() {
        var boxes = [Float](repeating: 0, count: 896 * 16), scores = [Float](repeating: -10, count: 896)
        let i = 600
        scores[i] = 2 // sigmoid 0.881
        boxes[i * 16 + 0] = 12.8; boxes[i * 16 + 1] = -6.4 // centre offset (0.1, −0.05)
        boxes[i * 16 + 2] = 32; boxes[i * 16 + 3] = 64       // size 0.25 × 0.5
        boxes[i * 16 + 4] = -12.8                             // keypoint 0 at anchor − 0.1 in x
        let d = BlazeFaceDecoder().decode(boxes: boxes, scores: scores)
        #expect(d.count == 1)
        let a = SSDAnchors.blazeFaceShortRange.centers[i]
        #expect(abs(d[0].score - 1 / (1 + expf(-2))) < 1e-6)
        #expect(abs(d[0].xMin - (a.x + 0.1 - 0.125)) < 1e-6 && abs(d[0].yMin - (a.y - 0.05 - 0.25)) < 1e-6)
        #expect(abs(d[0].width - 0.25) < 1e-6 && abs(d[0].height - 0.5) < 1e-6)
        #expect(abs(d[0].keypoints[0].x - (a.x - 0.1)) < 1e-6 && d[0].keypoints[1] == a)
    }

    @Test func scoresBelowHalfAreDropped() {
        var scores = [Float](repeating: -10, count: 896)
        scores[3] = -0.01 // sigmoid 0.4975
        #expect(BlazeFaceDecoder().decode(boxes: [Float](repeating: 0, count: 896 * 16), scores: scores).isEmpty)
        scores[3] = 0
        // Kept, though its box is empty (NMS must still end: an empty box overlaps nothing, not even itself).
        #expect(BlazeFaceDecoder().decode(boxes: [Float](repeating: 0, count: 896 * 16), scores: scores).count == 1)
    }

    /// Weighted NMS: overlapping boxes merge into their score-weighted mean with the best score;
    /// a disjoint box survives on its own.
    @Test func weightedNMSAveragesOverlapsByScore() {
        let a = FaceDetection(score: 0.9, xMin: 0.1, yMin: 0.1, width: 0.4, height: 0.4, keypoints: [(0.2, 0.2)])
        let b = FaceDetection(score: 0.6, xMin: 0.15, yMin: 0.1, width: 0.4, height: 0.4, keypoints: [(0.3, 0.2)])
        let c = FaceDetection(score: 0.7, xMin: 0.7, yMin: 0.7, width: 0.2, height: 0.2, keypoints: [(0.8, 0.8)])
        let out = BlazeFaceDecoder().weightedNMS([b, c, a])
        #expect(out.count == 2)
        #expect(out[0].score == 0.9 && abs(out[0].xMin - (0.9 * 0.1 + 0.6 * 0.15) / 1.5) < 1e-6)
        #expect(abs(out[0].width - 0.4) < 1e-6 && abs(out[0].keypoints[0].x - (0.9 * 0.2 + 0.6 * 0.3) / 1.5) < 1e-6)
        #expect(out[1] == c)
        // IoU 0.3 exactly is not "more than" the threshold: both survive.
        let d = FaceDetection(score: 0.5, xMin: 0, yMin: 0, width: 1, height: 0.3, keypoints: [])
        let e = FaceDetection(score: 0.4, xMin: 0, yMin: 0, width: 1, height: 0.09, keypoints: [])
        #expect(abs(d.iou(e) - 0.3) < 1e-6)
    }

    /// Letterbox of a 768 × 512 image into 128 × 128: padded to 768 × 768, 1/6 of the tensor above and
    /// below; a tensor point maps back to the image through the padding.
    @Test func letterboxRoundTrip() {
        let (r, px, py) = RotatedRect.image(width: 768, height: 512).letterboxed(tensorWidth: 128, tensorHeight: 128)
        #expect(r.width == 768 && r.height == 768 && px == 0 && abs(py - 1.0 / 6) < 1e-12)
        let d = FaceDetection(score: 1, xMin: 0.5, yMin: 0.5, width: 0.25, height: 1.0 / 3, keypoints: [(0.5, 1.0 / 6)])
        let p = BlazeFaceDecoder.project(d, padX: px, padY: py, rect: r, imageWidth: 768, imageHeight: 512)
        #expect(abs(p.xMin - 0.5) < 1e-6 && abs(p.yMin - 0.5) < 1e-6)
        #expect(abs(p.width - 0.25) < 1e-6 && abs(p.height - 0.5) < 1e-6)
        #expect(abs(p.keypoints[0].y) < 1e-6)
    }

    /// The Face Mesh crop: square on the longer side × 1.5, its x axis along right eye → left eye.
    @Test func faceMeshCropFollowsTheEyes() {
        let level = FaceDetection(score: 1, xMin: 0.25, yMin: 0.25, width: 0.5, height: 0.25,
                                  keypoints: [(0.4, 0.4), (0.6, 0.4)])
        let r = FaceMeshROI.rect(for: level, imageWidth: 400, imageHeight: 200)
        #expect(r.rotation == 0 && r.width == 300 && r.height == 300 && r.centerX == 200 && r.centerY == 75)
        // Left eye 40 px right and 40 px higher than the right eye: the crop turns −45°.
        let tilted = FaceDetection(score: 1, xMin: 0.25, yMin: 0.25, width: 0.5, height: 0.25,
                                   keypoints: [(0.4, 0.6), (0.5, 0.4)])
        let t = FaceMeshROI.rect(for: tilted, imageWidth: 400, imageHeight: 200)
        #expect(abs(t.rotation + Double.pi / 4) < 1e-6) // keypoints are Float
        let a = t.point(u: 0, v: 0.5), b = t.point(u: 1, v: 0.5)
        #expect(abs((b.y - a.y) / (b.x - a.x) + 1) < 1e-6 && b.x > a.x)
        let u = t.unit(x: b.x, y: b.y)
        #expect(abs(u.u - 1) < 1e-12 && abs(u.v - 0.5) < 1e-12)
    }

    /// Image-to-tensor sampling: the whole-image rect of a 2 × 1 image resampled to 4 × 1 samples
    /// OpenCV-style at x = i · 2 / 4 (edge replicated past the last pixel), mapped to the range.
    @Test func imageToTensorSamplesLikeWarpPerspective() throws {
        let img = try #require(MatteInputImage(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255]))
        let t = ImageToTensor.tensor(img, rect: .image(width: 2, height: 1), width: 4, height: 1, range: -1...1, border: .replicate)
        #expect(t.count == 12)
        #expect([t[0], t[3], t[6], t[9]] == [-1, 0, 1, 1])
        let z = ImageToTensor.tensor(img, rect: .image(width: 2, height: 1), width: 4, height: 1, range: 0...1, border: .zero)
        #expect([z[0], z[3], z[6], z[9]] == [0, 0.5, 1, 0.5]) // y = 0 row, bottom neighbour outside = 0… weighted 0
    }

    /// Polygon coverage: an axis-aligned square on pixel edges is exactly 255 inside; a half-pixel
    /// shift gives half coverage on its edges; total coverage equals the shoelace area.
    @Test(arguments: [1, 4, 8])
    func polygonCoverageMatchesArea(samples: Int) {
        let sq = PolygonRaster.fill([(2, 2), (6, 2), (6, 6), (2, 6)], width: 10, height: 10, samples: samples)
        #expect(sq.filter { $0 == 255 }.count == 16 && sq.filter { $0 != 0 }.count == 16)
        let tri: [(x: Double, y: Double)] = [(1.3, 0.7), (8.9, 2.2), (4.1, 9.4)]
        let cov = PolygonRaster.fill(tri, width: 10, height: 10, samples: samples)
        let area = abs((tri[1].x - tri[0].x) * (tri[2].y - tri[0].y) - (tri[2].x - tri[0].x) * (tri[1].y - tri[0].y)) / 2
        let covered = Double(cov.reduce(0) { $0 + Int($1) }) / 255
        #expect(abs(covered - area) < (samples == 1 ? 3 : 0.6))
        if samples >= 4 {
            let half = PolygonRaster.fill([(2.5, 2), (6.5, 2), (6.5, 6), (2.5, 6)], width: 10, height: 10, samples: samples)
            #expect(half[2 * 10 + 2] == 128 && half[2 * 10 + 6] == 128 && half[2 * 10 + 3] == 255)
        }
    }

    /// `fillMax` of several polygons into one plane is the per-pixel maximum of their separate
    /// coverages (the union the eye and lip planes use), and rows outside the polygons stay as they were.
    @Test func fillMaxIsThePerPixelMaximum() {
        let a: [(x: Double, y: Double)] = [(1.3, 0.7), (8.9, 2.2), (4.1, 9.4)]
        let b: [(x: Double, y: Double)] = [(3.5, 1), (11.2, 1.5), (10.5, 6.75), (2.25, 5.5)]
        let fa = PolygonRaster.fill(a, width: 12, height: 12), fb = PolygonRaster.fill(b, width: 12, height: 12)
        var union = [UInt8](repeating: 0, count: 144)
        union[11 * 12 + 5] = 77 // a row neither polygon reaches keeps its value
        PolygonRaster.fillMax(a, into: &union, width: 12, height: 12)
        PolygonRaster.fillMax(b, into: &union, width: 12, height: 12)
        var expected = zip(fa, fb).map { max($0, $1) }
        expected[11 * 12 + 5] = 77
        #expect(union == expected)
        #expect(zip(fa, fb).contains { $0 > 0 && $1 > 0 && $0 != $1 }) // the two really overlap
    }

    /// Box means equal brute-force window means (clipped windows) on a ramp with noise.
    @Test func boxMeanMatchesBruteForce() {
        let w = 13, h = 7, r = 3
        let x = (0..<(w * h)).map { Float(($0 * 37) % 11) / 11 }
        let m = GuidedFilter.boxMean(x, width: w, height: h, radius: r)
        for y in 0..<h {
            for i in 0..<w {
                var s = 0.0, n = 0.0
                for yy in max(0, y - r)...min(h - 1, y + r) {
                    for xx in max(0, i - r)...min(w - 1, i + r) { s += Double(x[yy * w + xx]); n += 1 }
                }
                #expect(abs(Double(m[y * w + i]) - s / n) < 1e-6)
            }
        }
    }

    /// He et al.'s properties: a flat guide gives the (twice) box-smoothed input; with the input as
    /// its own guide and a small ε the filter keeps a step edge (edge-preserving).
    @Test func guidedFilterSmoothsOnFlatGuideAndKeepsGuideEdges() {
        let w = 40, h = 10
        let p = (0..<(w * h)).map { Float(($0 % w) >= 20 ? 1 : 0) }
        let flat = GuidedFilter.filter(guide: [Float](repeating: 0.5, count: w * h), p: p, width: w, height: h, radius: 4, epsilon: 1e-3)
        let twice = GuidedFilter.boxMean(GuidedFilter.boxMean(p, width: w, height: h, radius: 4), width: w, height: h, radius: 4)
        #expect(zip(flat, twice).allSatisfy { abs($0 - $1) < 1e-5 })
        #expect(flat[5 * w + 19] > 0.2 && flat[5 * w + 20] < 0.8) // blurred across the step
        let kept = GuidedFilter.filter(guide: p, p: p, width: w, height: h, radius: 4, epsilon: 1e-4)
        #expect(kept[5 * w + 19] < 0.01 && kept[5 * w + 20] > 0.99)
    }
}

/// The fast guided filter (coefficients at 1/s resolution) stays close to the full one on a soft
/// step guided by a sharp edge, and equals it for s = 1.
@Suite struct MatteFastGuidedFilterTests {
    @Test func fastFilterApproximatesTheFullFilter() {
        let w = 96, h = 64
        let guide = (0..<(w * h)).map { Float(($0 % w) >= 48 ? 0.8 : 0.2) }
        let p = (0..<(w * h)).map { Float(min(max((Float($0 % w) - 40) / 16, 0), 1)) }
        let full = GuidedFilter.filter(guide: guide, p: p, width: w, height: h, radius: 8, epsilon: 1e-3)
        #expect(GuidedFilter.fastFilter(guide: guide, p: p, width: w, height: h, radius: 8, epsilon: 1e-3, subsample: 1) == full)
        let fast = GuidedFilter.fastFilter(guide: guide, p: p, width: w, height: h, radius: 8, epsilon: 1e-3, subsample: 4)
        let worst = zip(full, fast).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 0.1, "worst \(worst)")
        // The sharp guide edge survives: across columns 47 → 48 the output jumps.
        #expect(fast[32 * w + 48] - fast[32 * w + 47] > 0.3)
    }
}
