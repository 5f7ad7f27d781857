import DarkroomCore
import DarkroomIO
import Foundation
import Testing

/// Every real camera file in ../shared/samples/{dng,raw} develops to a sane JPEG or fails with
/// the expected, specific error. Skips when the corpus is absent.
@Suite("Real samples")
struct RealSampleTests {
    /// Files that must fail, and the error category they must fail with.
    static let expectedFailures: [String: String] = [
        "gopro_hero6_GOPR0024.gpr": "unsupported",
    ]

    static var samples: [URL] { TestSupport.files(in: "dng") + TestSupport.files(in: "raw") }

    @Test func everySampleDevelopsOrFailsClearly() throws {
        let files = Self.samples
        guard !files.isEmpty else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        for f in files {
            let out = dir + "/" + f.deletingPathExtension().lastPathComponent + ".jpg"
            do {
                let r = try FileDeveloper.develop(input: f.path, output: out, recipe: DevelopRecipe(), export: ExportOptions())
                #expect(Self.expectedFailures[f.lastPathComponent] == nil, "\(f.lastPathComponent) should have failed")
                let decoded = try OutputInspector.decodeRGB8(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))))
                #expect(decoded.width == r.width && decoded.height == r.height)
                // Sane: not black, not white, not flat.
                var sum = 0.0, sum2 = 0.0
                let n = decoded.pixels.count
                for v in decoded.pixels { let d = Double(v); sum += d; sum2 += d * d }
                let mean = sum / Double(n), sd = (sum2 / Double(n) - mean * mean).squareRoot()
                #expect(mean > 8 && mean < 245, "\(f.lastPathComponent): mean \(mean)")
                #expect(sd > 3, "\(f.lastPathComponent): flat image, sd \(sd)")
            } catch {
                let expected = Self.expectedFailures[f.lastPathComponent]
                #expect(expected == error.category, "\(f.lastPathComponent): \(error)")
                #expect(error.description.hasPrefix(f.path + ": "))
                #expect(!FileManager.default.fileExists(atPath: out))
            }
        }
    }
}
