import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import Foundation
import Testing

@Suite("Inspect")
struct InspectTests {
    @Test func jpegWithMattesSummary() throws {
        let img = EncodeFixtures.image(mattes: [.portraitEffects, .hair])
        let jpeg = try JPEGWriter.encode(img, options: .init(dateTime: "2024:01:02 03:04:05"))
        let s = try OutputInspector.inspect(jpeg)
        #expect(s.format == .jpeg && s.width == 128 && s.height == 96 && s.bitsPerSample == 8)
        #expect(s.iccProfile == img.iccProfile)
        #expect(s.iccDescription == "sRGB built-in")
        #expect(s.orientation == 1)
        #expect(s.thumbnail == .init(width: 64, height: 48))
        #expect(s.exif["Make"] == "Canon")
        #expect(s.exif["DateTimeOriginal"] == "2021:06:05 14:03:22")
        #expect(s.exif["ExposureTime"] == "1/250")
        #expect(s.exif["FNumber"] == "8/1")
        #expect(s.exif["ExposureBiasValue"] == "-7/10")
        #expect(s.exif["ColorSpace"] == "1")
        #expect(s.exif["GPSLatitude"] == "48/1 51/1 30240/1000")
        #expect(s.xmpBytes ?? 0 > 0)
        #expect(s.auxiliaryPlanes == [.init(urn: MatteKind.portraitEffects.urn, width: 64, height: 48),
                                      .init(urn: MatteKind.hair.urn, width: 64, height: 48)])
        for m in img.mattes {
            let (w, h, px) = try OutputInspector.decodeAuxiliary(jpeg, urn: m.kind.urn)
            #expect(w == 64 && h == 48)
            #expect(EncodeFixtures.psnr(m.pixels, px) > 35)
        }
        // The primary still decodes to the same pixels with the MPF images appended.
        let plain = try JPEGWriter.encode({ var i = img; i.mattes = []; return i }(), options: .init(dateTime: "2024:01:02 03:04:05"))
        #expect(try OutputInspector.decodeRGB8(jpeg).pixels == OutputInspector.decodeRGB8(plain).pixels)
        if let j = EncodeFixtures.exiftool(jpeg) {
            #expect(j["NumberOfImages"] as? Int == 3)
            #expect(j["MPImageType"] != nil)
        }
    }

    @Test func summaryIsCodable() throws {
        let s = try OutputInspector.inspect(JPEGWriter.encode(EncodeFixtures.image(mattes: [.sky])))
        let back = try JSONDecoder().decode(OutputSummary.self, from: JSONEncoder().encode(s))
        #expect(back == s)
    }

    @Test func panasonicMPFSample() throws {
        let url = EncodeFixtures.samplesDir.appendingPathComponent("heif/mdextractor_Panasonic_DMC-LX7_MPF.jpg")
        guard let data = try? Data(contentsOf: url) else { return }
        let s = try OutputInspector.inspect(Array(data))
        #expect(s.format == .jpeg)
        #expect(s.exif["Make"] == "Panasonic")
        #expect(s.thumbnail != nil)
        #expect(s.auxiliaryPlanes.isEmpty)   // its MPF image is a preview, not a matte
        let previews = try OutputInspector.mpfSecondaries(Array(data))
        #expect(previews.count == 1)
        #expect(previews.first?.bytes.count == 718934)
    }

    @Test func heifSamplesReadOrFailCleanly() throws {
        for name in ["libvips_apple-heic-gainmap.heic", "pillowheif_nokia_alpha.heic"] {
            let url = EncodeFixtures.samplesDir.appendingPathComponent("heif/\(name)")
            guard let data = try? Data(contentsOf: url) else { continue }
            do {
                let s = try OutputInspector.inspect(Array(data))
                #expect(s.format == .heif && s.width > 0)
                #expect(!s.auxiliaryPlanes.contains { $0.urn.contains("alpha") })
            } catch {
                // libheif 1.15 refuses the iPhone file ("Too many auxiliary image references").
                #expect(error.description.hasPrefix("HEIF inspect:"))
            }
        }
    }

    @Test func corruptAndTruncatedInputsThrow() throws {
        let jpeg = try JPEGWriter.encode(EncodeFixtures.image(mattes: [.skin]))
        let heic = try HEIFWriter.encode(EncodeFixtures.image(width: 64, height: 48, thumbnail: false))
        let tiff = try TIFFWriter.encode(EncodeFixtures.image(thumbnail: false))
        var cases: [[UInt8]] = [[], [0xFF, 0xD8], Array("hello world!".utf8)]
        for f in [jpeg, heic, tiff] {
            for cut in [4, 20, 200, f.count / 2] where cut < f.count { cases.append(Array(f.prefix(cut))) }
        }
        var mangled = jpeg
        for i in stride(from: 40, to: min(600, mangled.count), by: 7) { mangled[i] ^= 0x5A }
        cases.append(mangled)
        for c in cases {
            // Either a clean error or a (partial) summary; never a trap.
            _ = try? OutputInspector.inspect(c)
            _ = try? OutputInspector.decodeRGB8(c)
        }
        #expect(throws: EncodeError.self) { try OutputInspector.inspect([1, 2, 3]) }
        #expect(throws: EncodeError.self) { try OutputInspector.inspect(Array(heic.prefix(heic.count / 2))) }
        let corrupt = EncodeFixtures.samplesDir.appendingPathComponent("corrupt")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: corrupt.path)) ?? [] {
            guard let d = try? Data(contentsOf: corrupt.appendingPathComponent(name)) else { continue }
            _ = try? OutputInspector.inspect(Array(d))
        }
    }
}
