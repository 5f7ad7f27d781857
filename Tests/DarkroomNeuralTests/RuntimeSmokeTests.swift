import Foundation
import Testing
@testable import DarkroomNeural

@Suite struct RuntimeSmokeTests {
    @Test(arguments: ["selfie_segmentation.tflite", "face_detection_short_range.tflite", "face_landmark.tflite"])
    func loadsAndRuns(_ file: String) throws {
        guard let path = try? ModelLocator.path(for: file) else { print("skip: \(file) absent; run `make models`"); return }
        let model = try NeuralModel(path: path)
        let n = model.inputShape.reduce(1, *)
        let input = (0..<n).map { Float(($0 * 37) % 255) / 255 }
        let outputs = try model.run(input)
        for (name, o) in zip(model.outputNames, outputs) { print(file, name, o.count, o.prefix(4)) }
        #expect(outputs.count == model.outputShapes.count)
    }
}
