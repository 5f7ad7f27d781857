@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomCore
import DarkroomTestSupport
import Foundation
import Testing

/// Large JPEGs are encoded as strips in parallel and joined with restart markers; an independent
/// decoder must see exactly the pixels of a single-pass encode.
@Suite("JPEG strips")
struct EncodeStripTests {
    static func image(width: Int, height: Int) -> [UInt8] {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        var s: UInt32 = 12345
        for y in 0..<height { for x in 0..<width {
            s = s &* 1664525 &+ 1013904223
            let n = Int(s >> 28)
            let i = (y * width + x) * 3
            px[i] = UInt8(truncatingIfNeeded: (x * 255 / width + n))
            px[i + 1] = UInt8(truncatingIfNeeded: (y * 255 / height + (x / 16) * 9))
            px[i + 2] = UInt8(truncatingIfNeeded: ((x ^ y) & 0xFF) / 2 + n)
        } }
        return px
    }

    @Test(arguments: [(TurboJPEG.Sampling.s444, 90, 1030, 1201), (.s420, 80, 1013, 1333), (.s422, 75, 777, 900)])
    func stripsDecodeLikeSinglePass(sampling: TurboJPEG.Sampling, quality: Int, width: Int, height: Int) throws {
        let px = Self.image(width: width, height: height)
        let joined = try StripJPEG.compress(rgb: px, width: width, height: height, quality: quality, sampling: sampling)
        let single = try TurboJPEG(.compress).compress(pixels: px, width: width, height: height, channels: 3,
                                                       quality: quality, sampling: sampling)
        // It really was split: a DRI segment and restart markers are present.
        #expect(zip(joined, joined.dropFirst()).contains { $0 == 0xFF && $1 == 0xDD })
        #expect(zip(joined, joined.dropFirst()).contains { $0 == 0xFF && $1 == 0xD0 })
        #expect(!zip(single, single.dropFirst()).contains { $0 == 0xFF && $1 == 0xDD })
        let a = try OutputInspector.decodeRGB8(joined), b = try OutputInspector.decodeRGB8(single)
        #expect(a.width == width && a.height == height)
        #expect(a.pixels == b.pixels)
        // Deterministic.
        #expect(try StripJPEG.compress(rgb: px, width: width, height: height, quality: quality, sampling: sampling) == joined)
    }

    /// exiftool (when installed) validates the joined stream.
    @Test func exiftoolValidates() throws {
        guard let exiftool = TestSupport.tool("/usr/bin/exiftool", "/usr/local/bin/exiftool") else { return }
        let px = Self.image(width: 900, height: 1100)
        let img = RenderedImage(width: 900, height: 1100, bitsPerSample: 8, pixels8: px, colorSpaceName: "srgb", iccProfile: [])
        let bytes = try JPEGWriter.encode(img, options: JPEGOptions(quality: 90))
        let path = try TestSupport.temporaryFile(bytes, suffix: "jpg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try TestSupport.runTool(exiftool, ["-validate", "-warning", "-error", "-a", "-s", path]).stdout
        #expect(out.contains("Validate") && out.contains("OK"), "\(out)")
    }
}
