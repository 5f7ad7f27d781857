import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Every real camera file in ../shared/samples/{dng,raw} develops to a sane JPEG or fails with
/// the expected, specific error. Skips when the corpus is absent.
@Suite("Real samples")
struct RealSampleTests {
    /// Files that must fail, and the error category they must fail with.
    static let expectedFailures: [String: String] = [
        "gopro_hero6_GOPR0024.gpr": "unsupported",          // VC-5 compression, LibRaw cannot decode
    ]

    /// Files whose sensor data is degenerate by construction: a flat field and a saturated frame.
    /// (Adobe's ProfileGainTableMap samples adobesdk_05–08 also hold one constant value, but their
    /// gain table map brightens the middle of the picture, so they develop to a real image.)
    /// And one whose tags make the reference look (the default) nearly black, as the DNG SDK's
    /// render is: huaweip9's BaselineExposure has count 2, which the SDK ignores, so its
    /// 10-bit-in-16-bit data stays 6 stops dark (../shared/reference/dngsdk/README.md).
    enum Content { case flat, white, dark }
    static let degenerate: [String: Content] = [
        "adobesdk_09_ImageSequenceInfo_1_of_3.dng": .flat, "rpi_imx296_pidng_image_0.dng": .white,
        "huaweip9_pydng_RAW_00242.dng": .dark,
    ]

    static var samples: [URL] { TestSupport.files(in: "dng") + TestSupport.files(in: "raw") }

    @Test func everySampleDevelopsOrFailsClearly() throws {
        let files = Self.samples
        guard !files.isEmpty else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        for f in files {
            let out = dir + "/" + f.deletingPathExtension().lastPathComponent + ".jpg"
            let r: DevelopResult
            do throws(DevelopFailure) {
                r = try FileDeveloper.develop(input: f.path, output: out, recipe: DevelopRecipe(), export: ExportOptions())
            } catch {
                let expected = Self.expectedFailures[f.lastPathComponent]
                #expect(expected == error.category, "\(f.lastPathComponent): \(error)")
                #expect(error.description.hasPrefix(f.path + ": "))
                #expect(!FileManager.default.fileExists(atPath: out))
                continue
            }
            #expect(Self.expectedFailures[f.lastPathComponent] == nil, "\(f.lastPathComponent) should have failed")
            let decoded = try OutputInspector.decodeRGB8(try [UInt8](Data(contentsOf: URL(fileURLWithPath: out))))
            #expect(decoded.width == r.width && decoded.height == r.height)
            // Sane: not black, not white, not flat.
            var sum = 0.0, sum2 = 0.0
            let n = decoded.pixels.count
            for v in decoded.pixels { let d = Double(v); sum += d; sum2 += d * d }
            let mean = sum / Double(n), sd = (sum2 / Double(n) - mean * mean).squareRoot()
            switch Self.degenerate[f.lastPathComponent] {
            case .flat?: #expect(sd < 1, "\(f.lastPathComponent): a flat field must stay flat, sd \(sd)")
            case .white?: #expect(mean > 250, "\(f.lastPathComponent): a saturated frame must be white, mean \(mean)")
            case .dark?: #expect(mean < 8 && sd > 1, "\(f.lastPathComponent): dark as the SDK renders it, but not empty: mean \(mean), sd \(sd)")
            case nil:
                #expect(mean > 8 && mean < 245, "\(f.lastPathComponent): mean \(mean)")
                #expect(sd > 3, "\(f.lastPathComponent): flat image, sd \(sd)")
            }
        }
    }
}
