import Foundation
import Testing
import DarkroomIO
import DarkroomNeural
import DarkroomTestSupport

/// Darkroom's semantic-matte pipeline (our TFLite/XNNPACK runtime + Swift pre/post-processing) against
/// MediaPipe 0.10.21's own Python solutions on the 24 Kodak images (Tests/NeuralReference/mediapipe,
/// made by `make mediapipe-reference`). Skips without `make models` or `../shared/samples/kodak24`.
@Suite(.serialized) struct SemanticMatteKodakTests {
    static let reference = TestSupport.packageRoot.appendingPathComponent("Tests/NeuralReference/mediapipe")
    /// The Kodak images where MediaPipe's Face Mesh finds a face (its README): the portraits.
    static let portraits = ["kodim04", "kodim15"]
    /// The other 22: no face (kodim19's lighthouse and kodim23's parrot fool BlazeFace, not Face Mesh).
    static let noFace = (1...24).map { String(format: "kodim%02d", $0) }.filter { !portraits.contains($0) }

    static func models() -> SemanticMatteModels? { try? SemanticMatteModels.load() }

    static func image(_ name: String) throws -> MatteInputImage? {
        guard let dir = TestSupport.sharedSamples("kodak24") else { return nil }
        let png = try PNGReader.read(contentsOf: dir.appendingPathComponent(name + ".png").path)
        guard png.channels == 3 else { throw TestSupport.TestFailure("\(name): \(png.channels) channels") }
        return MatteInputImage(width: png.width, height: png.height, pixels: png.pixels)
    }

    static func referenceMask(_ name: String) throws -> [UInt8] {
        let png = try PNGReader.read(contentsOf: reference.appendingPathComponent(name + "_person.png").path)
        guard png.width == 256, png.height == 256, png.channels == 1 else { throw TestSupport.TestFailure("\(name): reference mask shape") }
        return png.pixels
    }

    static func referenceLandmarks(_ name: String) throws -> [[[Double]]] {
        let data = try Data(contentsOf: reference.appendingPathComponent("landmarks/\(name).json"))
        let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (obj?["faces"] as? [[[Double]]]) ?? []
    }

    /// Person masks at the model's resolution: mean IoU (probability ≥ 0.5) over the images where
    /// MediaPipe marks at least 1 % of the frame as person ≥ 0.95; printed per image.
    @Test func personMaskMatchesMediaPipe() throws {
        guard let models = Self.models() else { return }
        var ious: [Double] = []
        for k in 1...24 {
            let name = String(format: "kodim%02d", k)
            guard let img = try Self.image(name) else { return }
            let ref = try Self.referenceMask(name)
            let ours = try SemanticMattes.personProbability(img, model: models.person)
            let a = ref.map { $0 >= 128 }, b = ours.map { $0 >= 0.5 }
            let refArea = a.filter { $0 }.count
            guard refArea >= 256 * 256 / 100 else { continue }
            let inter = zip(a, b).filter { $0 && $1 }.count, union = zip(a, b).filter { $0 || $1 }.count
            let iou = Double(inter) / Double(union)
            let maxDiff = zip(ref, ours).map { abs(Double($0) / 255 - Double($1)) }.max() ?? 0
            print("semantic-mattes: \(name) person IoU \(String(format: "%.4f", iou)) (MediaPipe \(refArea) px), max |Δp| \(String(format: "%.3f", maxDiff))")
            ious.append(iou)
        }
        let mean = ious.reduce(0, +) / Double(max(ious.count, 1))
        print("semantic-mattes: mean person IoU \(String(format: "%.4f", mean)) over \(ious.count) images")
        #expect(ious.count >= 10)
        #expect(mean >= 0.95)
    }

    /// Faces: found on exactly the portraits; none (so no portrait matte) on the other 22.
    @Test func facesOnlyOnThePortraits() throws {
        guard let models = Self.models() else { return }
        for name in Self.portraits + Self.noFace {
            guard let img = try Self.image(name) else { return }
            let faces = try SemanticMattes.faces(img, models: models)
            let expected = Self.portraits.contains(name) ? 1 : 0
            #expect(faces.count == expected, "\(name): \(faces.count) faces")
            let planes = SemanticPlanes(analysis: SemanticAnalysis(imageWidth: img.width, imageHeight: img.height,
                                                                   person: [Float](repeating: 1, count: 256 * 256), faces: faces),
                                        image: img, width: img.width / 2, height: img.height / 2)
            #expect((planes.portrait != nil) == (expected == 1), "\(name): portrait plane only with a face")
        }
    }

    /// Lips and teeth land on the mouth: every non-zero pixel of our lips/teeth planes (at full image
    /// size) lies inside the box of MediaPipe's own mouth landmarks (outer lip contour) grown by 6 % of
    /// the face width; our lip landmarks lie within 6 % of the face width of MediaPipe's (ours come from
    /// `face_landmark.tflite`, MediaPipe's reference from the attention model, which refines the lips);
    /// the lips regions. IoU is printed.
    @Test(arguments: portraits)
    func lipsAndTeethOnTheMouth(name: String) throws {
        guard let models = Self.models(), let img = try Self.image(name) else { return }
        let ref = try Self.referenceLandmarks(name)
        try #require(ref.count == 1)
        let faces = try SemanticMattes.faces(img, models: models)
        try #require(faces.count == 1)
        let W = Double(img.width), H = Double(img.height)
        let refPts = ref[0].map { (x: $0[0] * W, y: $0[1] * H) }
        let oval = FaceMeshTopology.faceOval.map { refPts[$0].x }
        let faceWidth = (oval.max() ?? 0) - (oval.min() ?? 0)
        let margin = 0.06 * faceWidth
        let mouth = FaceMeshTopology.lipsOuter.map { refPts[$0] }
        let box = (x0: mouth.map(\.x).min()! - margin, x1: mouth.map(\.x).max()! + margin,
                   y0: mouth.map(\.y).min()! - margin, y1: mouth.map(\.y).max()! + margin)
        var worst = 0.0
        for i in FaceMeshTopology.lipsOuter + FaceMeshTopology.lipsInner {
            let d = hypot(faces[0].points[i].x - refPts[i].x, faces[0].points[i].y - refPts[i].y)
            worst = max(worst, d)
        }
        let meanAll = (0..<468).map { hypot(faces[0].points[$0].x - refPts[$0].x, faces[0].points[$0].y - refPts[$0].y) }.reduce(0, +) / 468
        print("semantic-mattes: \(name) mean landmark distance to MediaPipe's \(String(format: "%.1f", meanAll)) px (all 468)")
        print("semantic-mattes: \(name) face width \(Int(faceWidth)) px, worst lip landmark distance to MediaPipe's \(String(format: "%.1f", worst)) px")
        #expect(worst <= margin)
        let analysis = SemanticAnalysis(imageWidth: img.width, imageHeight: img.height,
                                        person: try SemanticMattes.personProbability(img, model: models.person), faces: faces)
        let planes = SemanticPlanes(analysis: analysis, image: img, width: img.width, height: img.height)
        var lipsPixels = 0, teethPixels = 0
        for (plane, isLips) in [(planes.lips, true), (planes.teeth, false)] {
            for y in 0..<img.height {
                for x in 0..<img.width where plane[y * img.width + x] > 0 {
                    if isLips { lipsPixels += 1 } else { teethPixels += 1 }
                    let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                    #expect(cx >= box.x0 && cx <= box.x1 && cy >= box.y0 && cy <= box.y1, "\(name): (\(x), \(y)) outside the mouth")
                }
            }
        }
        print("semantic-mattes: \(name) lips \(lipsPixels) px, teeth \(teethPixels) px, mouth box \(Int(box.x0))…\(Int(box.x1)) × \(Int(box.y0))…\(Int(box.y1))")
        #expect(lipsPixels > 100)
        // Lips region from MediaPipe's landmarks through the same polygons.
        let refFace = FaceLandmarks(points: refPts.map { ($0.x, $0.y, 0) }, presence: 1)
        let refPlanes = SemanticPlanes(analysis: SemanticAnalysis(imageWidth: img.width, imageHeight: img.height,
                                                                  person: analysis.person, faces: [refFace]),
                                       image: img, width: img.width, height: img.height)
        let a = planes.lips.map { $0 >= 128 }, b = refPlanes.lips.map { $0 >= 128 }
        let iou = Double(zip(a, b).filter { $0 && $1 }.count) / Double(max(1, zip(a, b).filter { $0 || $1 }.count))
        print("semantic-mattes: \(name) lips IoU vs MediaPipe's landmarks \(String(format: "%.3f", iou))")
        #expect(iou >= 0.4)
    }

    /// The skin plane on kodim04 (face found): inside the person and away from eyes and mouth it
    /// follows the colour likelihood (mean within 0.15), but smoothed by the guided filter: the mean
    /// step between horizontal neighbours is at most half the raw likelihood's.
    @Test func skinPlaneIsTheSmoothedLikelihood() throws {
        guard let models = Self.models(), let img = try Self.image("kodim04") else { return }
        let analysis = try SemanticMattes.analyse(img, models: models)
        try #require(analysis.faces.count == 1)
        let w = img.width, h = img.height
        let planes = SemanticPlanes(analysis: analysis, image: img, width: w, height: h)
        let portrait = try #require(planes.portrait)
        // A synthetic likelihood with pixel noise: the image's green channel plus a ±40 checker.
        let likelihood = (0..<(w * h)).map { k -> UInt8 in
            let g = Int(img.pixels[3 * k + 1]), n = ((k % w + k / w) % 2 == 0) ? 40 : -40
            return UInt8(min(255, max(0, g + n)))
        }
        let skin = planes.skin(skinColor: likelihood)
        var rawStep = 0.0, skinStep = 0.0, rawMean = 0.0, skinMean = 0.0, n = 0
        for y in 0..<h {
            for x in 1..<w {
                let k = y * w + x
                guard portrait[k] == 255, portrait[k - 1] == 255, planes.eyes[k] == 0, planes.mouth[k] == 0,
                      planes.eyes[k - 1] == 0, planes.mouth[k - 1] == 0 else { continue }
                rawStep += abs(Double(likelihood[k]) - Double(likelihood[k - 1]))
                skinStep += abs(Double(skin[k]) - Double(skin[k - 1]))
                rawMean += Double(likelihood[k]); skinMean += Double(skin[k]); n += 1
            }
        }
        try #require(n > 1000)
        print("semantic-mattes: kodim04 skin inside the person: mean step \(String(format: "%.1f", skinStep / Double(n))) vs likelihood \(String(format: "%.1f", rawStep / Double(n))), mean \(String(format: "%.1f", skinMean / Double(n))) vs \(String(format: "%.1f", rawMean / Double(n)))")
        #expect(skinStep <= 0.5 * rawStep)
        #expect(abs(skinMean - rawMean) / Double(n) <= 0.15 * 255)
    }
}
