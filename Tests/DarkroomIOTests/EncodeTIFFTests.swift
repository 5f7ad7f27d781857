import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import Testing

@Suite("EncodeTIFF")
struct EncodeTIFFTests {
    @Test(arguments: [true, false])
    func sixteenBitRoundTripIsExact(deflate: Bool) throws {
        let w = 97, h = 61   // odd sizes: several strips, ragged last one
        let px = EncodeFixtures.gradient16(width: w, height: h)
        let img = RenderedImage(width: w, height: h, bitsPerSample: 16, pixels16: px, colorSpaceName: "prophoto",
                                iccProfile: EncodeFixtures.largeProfile, exif: EncodeFixtures.exif())
        let tiff = try TIFFWriter.encode(img, options: .init(deflate: deflate, dateTime: "2024:01:02 03:04:05"))
        let back = try OutputInspector.decodeRGB16(tiff)
        #expect(back.width == w && back.height == h)
        #expect(back.pixels == px)
        let s = try OutputInspector.inspect(tiff)
        #expect(s.format == .tiff && s.bitsPerSample == 16)
        #expect(s.iccProfile == img.iccProfile)
        #expect(s.orientation == 1)
        #expect(s.exif["Make"] == "Canon" && s.exif["Model"] == "Canon EOS 6D")
        #expect(s.exif["Software"] == "Darkroom \(DarkroomVersion.string)")
        #expect(s.exif["DateTime"] == "2024:01:02 03:04:05")
        print("TIFF 16-bit \(w)x\(h) deflate=\(deflate): \(tiff.count) bytes")
    }

    @Test func eightBitRoundTripIsExact() throws {
        let img = EncodeFixtures.image(thumbnail: false)
        let tiff = try TIFFWriter.encode(img)
        let back = try OutputInspector.decodeRGB8(tiff)
        #expect(back.pixels == img.pixels8)
        #expect(throws: EncodeError.self) { try OutputInspector.decodeRGB16(tiff) }
        if let j = EncodeFixtures.exiftool(tiff) {
            #expect(j["Compression"] as? Int == 8)
            #expect(j["Orientation"] as? Int == 1)
            #expect(j["ProfileDescription"] as? String == "sRGB built-in")
        }
    }

    @Test func invalidImageThrows() {
        let img = RenderedImage(width: 4, height: 4, bitsPerSample: 12, colorSpaceName: "srgb", iccProfile: [])
        #expect(throws: EncodeError.self) { try TIFFWriter.encode(img) }
    }
}
