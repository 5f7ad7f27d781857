import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// `dng_validate` (Adobe DNG SDK 1.7.1) at the path in $DNG_VALIDATE; nil skips the checks that need it.
var dngValidate: String? {
    guard let p = ProcessInfo.processInfo.environment["DNG_VALIDATE"], FileManager.default.isExecutableFile(atPath: p) else { return nil }
    return p
}

/// Synthetic stored images (a CFA mosaic and a 3-sample LinearRaw image, 300×270: four digest
/// tiles, three of them clipped) with deterministic, non-repeating values.
enum SyntheticStored {
    static func image(samplesPerPixel spp: Int, width: Int = 300, height: Int = 270) -> RawImage {
        var md = RawMetadata()
        md.fileFormat = "DNG"
        md.sensorWidth = width; md.sensorHeight = height
        md.samplesPerPixel = spp
        md.cfa = spp == 1 ? CFAPattern(colors: [.red, .green, .green, .blue]) : nil
        md.bitsPerSample = 12
        md.blackLevel = [64]
        md.whiteLevel = Array(repeating: 4095, count: spp)
        md.asShotNeutral = [0.5, 1, 0.7]
        md.exif.make = "Darkroom"; md.exif.model = "Synthetic"
        var p = CameraProfile()
        p.colorMatrix1 = Matrix3([0.7, -0.1, -0.05, -0.4, 1.2, 0.2, -0.05, 0.1, 0.6])
        p.calibrationIlluminant1 = 21
        md.profile = p
        var pixels = [UInt16](repeating: 0, count: width * height * spp)
        for y in 0..<height { for x in 0..<width { for c in 0..<spp {
            pixels[(y * width + x) * spp + c] = UInt16((x * 7 + y * 13 + (x * y) % 31 + c * 1000) & 0x0FFF)
        } } }
        return RawImage(width: width, height: height, samplesPerPixel: spp, pixels: pixels, metadata: md)
    }
}

@Suite struct RawDigestTests {
    /// RawImageDigest / NewRawImageDigest of `SyntheticStored.image`, as written by us and accepted
    /// by dng_validate 1.7.1: `DNG_VALIDATE=/work/oracle/build/dng_validate swift test --filter
    /// RawDigestTests` runs `dngValidateAcceptsOurDigests`, which has the SDK recompute both
    /// (the legacy one with NewRawImageDigest renamed away) and finds no mismatch.
    static let recorded: [Int: (legacy: String, new: String)] = [
        1: ("c70cd9ddeaf70f36c81b3203484b9c7e", "af4c27f07f33b0319bd7bd7697ccad2e"),
        3: ("f10b97147c1c0ddb456c44daeb44e906", "12ce72a0fc95b4fe1f94df73ab85a5ee"),
    ]

    @Test(arguments: [1, 3]) func digestsEqualTheSDKAcceptedValues(spp: Int) {
        let image = SyntheticStored.image(samplesPerPixel: spp)
        let legacy = RawDigest.hex(RawDigest.rawImageDigest(image.pixels))
        let new = RawDigest.hex(RawDigest.newRawImageDigest(image.pixels, width: image.width, height: image.height, samplesPerPixel: spp))
        #expect(legacy == Self.recorded[spp]?.legacy)
        #expect(new == Self.recorded[spp]?.new)
    }

    /// The MD5 under the digests is RFC 1321's: its appendix A.5 test suite (libcrypto computes it).
    @Test func md5MatchesRFC1321() {
        let suite: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"), ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"), ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890",
             "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, digest) in suite { #expect(RawDigest.hex(RawDigest.md5(Array(text.utf8))) == digest, "\(text)") }
        // Streamed in pieces, the same digest.
        var stream = RawDigest.MD5Stream()
        for piece in ["message", " ", "digest"] { stream.update(Array(piece.utf8)) }
        #expect(RawDigest.hex(stream.finalize()) == "f96b697d7cb7938d525a2f31aaf161d0")
    }

    @Test func threadCountDoesNotChangeTheDigest() {
        let image = SyntheticStored.image(samplesPerPixel: 1, width: 1000, height: 600)
        let one = RawDigest.newRawImageDigest(image.pixels, width: 1000, height: 600, samplesPerPixel: 1, threads: 1)
        for t in [2, 3, 7] {
            #expect(RawDigest.newRawImageDigest(image.pixels, width: 1000, height: 600, samplesPerPixel: 1, threads: t) == one)
        }
    }

    /// One changed sample changes both digests (and only the tile hash of its tile feeds the new one).
    @Test func oneSampleChangesBothDigests() {
        var image = SyntheticStored.image(samplesPerPixel: 1)
        let before = (RawDigest.rawImageDigest(image.pixels), RawDigest.newRawImageDigest(image.pixels, width: 300, height: 270, samplesPerPixel: 1))
        image.pixels[299 * 1 + 269 * 300] ^= 1
        #expect(RawDigest.rawImageDigest(image.pixels) != before.0)
        #expect(RawDigest.newRawImageDigest(image.pixels, width: 300, height: 270, samplesPerPixel: 1) != before.1)
    }

    @Test(arguments: [1, 3]) func dngValidateAcceptsOurDigests(spp: Int) throws {
        guard let tool = dngValidate else { return }
        let dir = TestSupport.tempDirectory("digest-\(spp)")
        defer { TestSupport.cleanup(dir) }
        let path = dir + "/synthetic.dng"
        var options = DNGWriteOptions(tileSize: 256, dateTime: "2026:01:01 00:00:00", compression: .losslessJPEG(components: spp == 1 ? 2 : 1))
        options.rawDigests = true
        try DNGWriter.write(SyntheticStored.image(samplesPerPixel: spp), to: path, options: options)
        let run = try TestSupport.runTool(tool, ["-v", path])
        #expect(run.stdout.contains("NewRawImageDigest"))
        #expect(!(run.stdout + run.stderr).contains("does not match"), "\(run.stdout)\(run.stderr)")
        #expect(!(run.stdout + run.stderr).contains("*** Error"), "\(run.stderr)")
        // The legacy digest alone: NewRawImageDigest (51111 = 0xC7A7) renamed to a private tag number.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var renamed = 0
        for i in 0..<(bytes.count - 3) where bytes[i] == 0xA7 && bytes[i + 1] == 0xC7 && bytes[i + 2] == 0x01 && bytes[i + 3] == 0x00 {
            bytes[i] = 0xA8; renamed += 1   // tag 51112, type BYTE: an IFD entry, not sample data
        }
        #expect(renamed == 1)
        let legacyPath = dir + "/legacy.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: legacyPath))
        let legacy = try TestSupport.runTool(tool, ["-v", legacyPath])
        #expect(legacy.stdout.contains("RawImageDigest") && !legacy.stdout.contains("NewRawImageDigest: <"))
        #expect(!(legacy.stdout + legacy.stderr).contains("does not match"), "\(legacy.stdout)\(legacy.stderr)")
    }
}
