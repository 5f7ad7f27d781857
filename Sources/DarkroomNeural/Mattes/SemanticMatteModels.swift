/// The three MediaPipe 0.10.21 models the semantic mattes run (Apache-2.0; `make models` extracts
/// them), loaded once and shared (`NeuralModel.run` is safe to call from one thread at a time per
/// model; the pipeline calls each model sequentially).
public final class SemanticMatteModels: Sendable {
    public static let personFile = "selfie_segmentation.tflite"
    public static let detectorFile = "face_detection_short_range.tflite"
    public static let meshFile = "face_landmark.tflite"

    /// Person/background segmentation, 256 × 256 × 3 in (0…1), 256 × 256 × 1 probability out.
    public let person: NeuralModel
    /// BlazeFace short range, 128 × 128 × 3 in (−1…1), 896 × 16 boxes and 896 score logits out.
    public let detector: NeuralModel
    /// Face Mesh, 192 × 192 × 3 in (0…1), 468 × 3 landmarks and a face-flag logit out.
    public let mesh: NeuralModel

    public init(person: NeuralModel, detector: NeuralModel, mesh: NeuralModel) {
        self.person = person; self.detector = detector; self.mesh = mesh
    }

    /// Loads the three models from where `ModelLocator` finds them (its error says to run
    /// `make models` when one is missing).
    public static func load(threads: Int = 1) throws(NeuralError) -> SemanticMatteModels {
        SemanticMatteModels(person: try NeuralModel(path: try ModelLocator.path(for: personFile), threads: threads),
                            detector: try NeuralModel(path: try ModelLocator.path(for: detectorFile), threads: threads),
                            mesh: try NeuralModel(path: try ModelLocator.path(for: meshFile), threads: threads))
    }
}
