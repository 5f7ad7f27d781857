import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom develop --mattes portrait,skin,teeth,lips` end to end on Kodak images made into 14-bit
/// RGGB Bayer dumps: the planes read back by libheif (OutputInspector's `heif_image_handle`
/// auxiliary API) and exiftool; no portrait plane for a statue; `--mattes hair` refused.
/// Skips without `make models` (out/models/mediapipe-0.10.21) or `../shared/samples/kodak24`.
@Suite(.serialized) struct SemanticMatteCLITests {
    static let modelsPresent = FileManager.default.fileExists(
        atPath: TestSupport.packageRoot.appendingPathComponent("out/models/mediapipe-0.10.21/face_landmark.tflite").path)

    /// kodimNN as a 14-bit RGGB dump (sRGB decoded to linear, scaled to 16383), little-endian.
    static func bayerDump(_ name: String, into dir: String) throws -> (path: String, width: Int, height: Int)? {
        guard let k = TestSupport.sharedSamples("kodak24") else { return nil }
        let png = try PNGReader.read(contentsOf: k.appendingPathComponent(name + ".png").path)
        let w = png.width, h = png.height
        let lut = (0..<256).map { v -> UInt16 in
            let c = Double(v) / 255
            let l = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
            return UInt16((l * 16383).rounded())
        }
        var bytes = [UInt8](repeating: 0, count: w * h * 2)
        for y in 0..<h {
            for x in 0..<w {
                let ch = (y % 2 == 0) ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
                let v = lut[Int(png.pixels[(y * w + x) * 3 + ch])]
                bytes[(y * w + x) * 2] = UInt8(v & 0xFF); bytes[(y * w + x) * 2 + 1] = UInt8(v >> 8)
            }
        }
        let path = dir + "/\(name).raw"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, w, h)
    }

    static func develop(_ name: String, mattes: String, dir: String) throws -> [UInt8]? {
        guard let d = try bayerDump(name, into: dir) else { return nil }
        let r = try TestSupport.run(["develop", d.path, "-o", dir + "/out", "--bayer", "rggb", "--bits", "14",
                                     "--size", "\(d.width)x\(d.height)", "--format", "heif", "--mattes", mattes])
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir + "/out/\(name).heic"
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
    }

    @Test func portraitGetsAllFourPlanes() throws {
        guard Self.modelsPresent else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        guard let heic = try Self.develop("kodim04", mattes: "portrait,skin,teeth,lips", dir: dir) else { return }
        let urns = [MatteKind.portraitEffects, .skin, .teeth, .lips].map(\.urn)
        let s = try OutputInspector.inspect(heic)
        #expect(Set(s.auxiliaryPlanes.map(\.urn)) == Set(urns))
        // The planes as libheif decodes them: half size; the portrait covers the woman (centre of the
        // frame) and not the top-left corner (background); lips are a small region.
        let portrait = try OutputInspector.decodeAuxiliary(heic, urn: MatteKind.portraitEffects.urn)
        #expect(portrait.width == 256 && portrait.height == 384)
        #expect(portrait.pixels[200 * 256 + 128] > 200 && portrait.pixels[5 * 256 + 5] < 30)
        let lips = try OutputInspector.decodeAuxiliary(heic, urn: MatteKind.lips.urn)
        let lipsArea = lips.pixels.filter { $0 >= 128 }.count
        #expect(lipsArea > 50 && lipsArea < 2000, "lips \(lipsArea) px")
        // exiftool: every auxC URN and every matte's XMP type.
        if let tool = TestSupport.tool("/usr/bin/exiftool", "/usr/local/bin/exiftool") {
            let r = try TestSupport.runTool(tool, ["-a", "-G1", "-ee", "-AuxiliaryImageType", dir + "/out/kodim04.heic"])
            for urn in urns {
                #expect(r.stdout.contains("[QuickTime]     Auxiliary Image Type            : \(urn)"), "\(urn)")
                #expect(r.stdout.contains("[XMP-apdi]      Auxiliary Image Type            : \(urn)"), "\(urn)")
            }
        }
    }

    /// kodim17 is a statue's head: the person model marks it, but no face is found, so no portrait
    /// matte (skin and teeth are written empty).
    @Test func statueGetsNoPortraitPlane() throws {
        guard Self.modelsPresent else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        guard let heic = try Self.develop("kodim17", mattes: "portrait,skin,teeth", dir: dir) else { return }
        let urns = try OutputInspector.inspect(heic).auxiliaryPlanes.map(\.urn)
        #expect(!urns.contains(MatteKind.portraitEffects.urn))
        #expect(Set(urns) == Set([MatteKind.skin.urn, MatteKind.teeth.urn]))
        let skin = try OutputInspector.decodeAuxiliary(heic, urn: MatteKind.skin.urn)
        #expect(skin.pixels.allSatisfy { $0 <= 2 })
    }

    @Test func hairIsAUsageError() throws {
        let r = try TestSupport.run(["develop", "x.dng", "-o", "o", "--mattes", "skin,hair"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--mattes") && r.stderr.contains("hair cannot be computed") && r.stderr.split(separator: "\n").count == 1)
    }

    /// Every kind develop has no source for is refused (exit 2, one line naming the reason and
    /// the alternative), never developed without its plane.
    @Test(arguments: ["sky", "glasses", "portrait,glasses", "confidence", "constantcolourconfidence"])
    func uncomputableKindIsAUsageError(_ kinds: String) throws {
        let r = try TestSupport.run(["develop", "x.dng", "-o", "o", "--mattes", kinds])
        let kind = kinds.split(separator: ",").last.map(String.init) ?? kinds
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("--mattes") && r.stderr.contains("--matte \(kind)=FILE.png"), "\(r.stderr)")
    }
}
