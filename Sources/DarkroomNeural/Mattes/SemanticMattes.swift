import Foundation

/// Semantic mattes from the MediaPipe models: person segmentation, face detection and Face Mesh,
/// post-processed in Swift into planes of any size covering the whole image.
///
/// - `personProbability`: the image squeezed to 256 × 256 (no letterbox), 0…1 (MediaPipe's
///   `selfie_segmentation_cpu` graph); the model's probability per cell.
/// - `faces`: BlazeFace on the image letterboxed to 128 × 128 (−1…1), decoded and merged by
///   `BlazeFaceDecoder`; each detection's `FaceMeshROI` crop resampled to 192 × 192 (0…1, edge
///   pixels replicated) through Face Mesh; a face counts when the mesh's face presence is at least
///   `minFacePresence` (0.5, MediaPipe FaceMesh's default `min_tracking_confidence`), which rejects
///   the detector's false hits (kodim19's lighthouse window, kodim23's parrot).
/// - `planes`: see `SemanticPlanes`.
public enum SemanticMattes {
    public static let personSize = 256
    public static let detectorSize = 128
    public static let meshSize = 192
    public static let minFacePresence: Float = 0.5
    /// At most this many detections go through Face Mesh (best scores first).
    public static let maxFaces = 4

    /// The person model's probabilities (row-major `personSize²`, 0…1) for `image`.
    public static func personProbability(_ image: MatteInputImage, model: NeuralModel) throws(NeuralError) -> [Float] {
        let input = ImageToTensor.tensor(image, rect: .image(width: image.width, height: image.height),
                                         width: personSize, height: personSize, range: 0...1, border: .zero)
        let outs = try model.run(input)
        guard let mask = outs.first(where: { $0.count == personSize * personSize }) else {
            throw .unsupportedTensor(file: SemanticMatteModels.personFile, tensor: "output",
                                     reason: "no \(personSize)×\(personSize) output (got \(outs.map(\.count)) floats)")
        }
        return mask.map { min(max($0, 0), 1) }
    }

    /// BlazeFace detections on `image`, in unit image coordinates, best first.
    public static func detections(_ image: MatteInputImage, model: NeuralModel,
                                  decoder: BlazeFaceDecoder = BlazeFaceDecoder()) throws(NeuralError) -> [FaceDetection] {
        let (rect, padX, padY) = RotatedRect.image(width: image.width, height: image.height)
            .letterboxed(tensorWidth: detectorSize, tensorHeight: detectorSize)
        let input = ImageToTensor.tensor(image, rect: rect, width: detectorSize, height: detectorSize, range: -1...1, border: .zero)
        let outs = try model.run(input)
        let n = decoder.anchors.centers.count
        guard let boxes = outs.first(where: { $0.count == n * 16 }), let scores = outs.first(where: { $0.count == n }) else {
            throw .unsupportedTensor(file: SemanticMatteModels.detectorFile, tensor: "output",
                                     reason: "expected \(n)×16 boxes and \(n) scores (got \(outs.map(\.count)) floats)")
        }
        return decoder.decode(boxes: boxes, scores: scores).map {
            BlazeFaceDecoder.project($0, padX: padX, padY: padY, rect: rect, imageWidth: image.width, imageHeight: image.height)
        }
    }

    /// Face Mesh landmarks (image pixels) for the face detected as `d`.
    public static func landmarks(_ image: MatteInputImage, detection d: FaceDetection, model: NeuralModel) throws(NeuralError) -> FaceLandmarks {
        let rect = FaceMeshROI.rect(for: d, imageWidth: image.width, imageHeight: image.height)
        let input = ImageToTensor.tensor(image, rect: rect, width: meshSize, height: meshSize, range: 0...1, border: .replicate)
        let outs = try model.run(input)
        guard let pts = outs.first(where: { $0.count == FaceMeshTopology.landmarkCount * 3 }),
              let flag = outs.first(where: { $0.count == 1 }) else {
            throw .unsupportedTensor(file: SemanticMatteModels.meshFile, tensor: "output",
                                     reason: "expected \(FaceMeshTopology.landmarkCount)×3 landmarks and a face flag (got \(outs.map(\.count)) floats)")
        }
        return FaceLandmarks.projected(pts, presenceLogit: flag[0], rect: rect, cropSize: meshSize)
    }

    /// The confirmed faces of `image` (see the type's doc), in detection order.
    public static func faces(_ image: MatteInputImage, models: SemanticMatteModels) throws(NeuralError) -> [FaceLandmarks] {
        var out: [FaceLandmarks] = []
        for d in try detections(image, model: models.detector).prefix(maxFaces) {
            let f = try landmarks(image, detection: d, model: models.mesh)
            if f.presence >= minFacePresence { out.append(f) }
        }
        return out
    }

    /// Everything the planes need from the models, for `image`.
    public static func analyse(_ image: MatteInputImage, models: SemanticMatteModels) throws(NeuralError) -> SemanticAnalysis {
        SemanticAnalysis(imageWidth: image.width, imageHeight: image.height,
                         person: try personProbability(image, model: models.person),
                         faces: try faces(image, models: models))
    }
}

/// The models' findings on one image: the person probability at 256 × 256 and the confirmed faces.
public struct SemanticAnalysis: Sendable {
    public var imageWidth: Int
    public var imageHeight: Int
    /// Row-major 256 × 256, 0…1, covering the whole image (squeezed).
    public var person: [Float]
    public var faces: [FaceLandmarks]

    public init(imageWidth: Int, imageHeight: Int, person: [Float], faces: [FaceLandmarks]) {
        self.imageWidth = imageWidth; self.imageHeight = imageHeight; self.person = person; self.faces = faces
    }
}
