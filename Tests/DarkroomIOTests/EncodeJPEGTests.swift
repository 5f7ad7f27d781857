import CJPEG
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import Foundation
import Testing

/// Walks JPEG marker segments up to SOS: (marker, payload).
func jpegSegments(_ b: [UInt8]) -> [(UInt8, [UInt8])] {
    var out: [(UInt8, [UInt8])] = []
    var i = 2
    while i + 4 <= b.count, b[i] == 0xFF {
        let m = b[i + 1]
        let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
        guard len >= 2, i + 2 + len <= b.count else { break }
        out.append((m, Array(b[(i + 4)..<(i + 2 + len)])))
        if m == 0xDA { break }
        i += 2 + len
    }
    return out
}

/// ICC bytes reassembled from APP2 chunks in sequence order.
func reassembledICC(_ jpeg: [UInt8]) -> (bytes: [UInt8], chunks: Int) {
    let sig = Array("ICC_PROFILE".utf8) + [0]
    let chunks = jpegSegments(jpeg).filter { $0.0 == 0xE2 && Array($0.1.prefix(12)) == sig }
        .map { (seq: Int($0.1[12]), count: Int($0.1[13]), data: Array($0.1.dropFirst(14))) }
        .sorted { $0.seq < $1.seq }
    guard chunks.allSatisfy({ $0.count == chunks.count }),
          chunks.map(\.seq) == Array(1...max(chunks.count, 1)).prefix(chunks.count).map({ $0 }) else { return ([], -1) }
    return (chunks.flatMap(\.data), chunks.count)
}

@Suite("EncodeJPEG")
struct EncodeJPEGTests {
    @Test func gradientRoundTripPSNRAndICC() throws {
        let img = EncodeFixtures.image()
        let jpeg = try JPEGWriter.encode(img, options: .init(quality: 90, dateTime: "2024:01:02 03:04:05"))
        let tj = try TurboJPEG(.decompress)
        let (w, h, px) = try tj.decompress(jpeg)
        #expect(w == 128 && h == 96)
        let psnr = EncodeFixtures.psnr(img.pixels8, px)
        print("JPEG q90 128x96: \(jpeg.count) bytes, PSNR \(String(format: "%.2f", psnr)) dB")
        #expect(psnr > 38)
        let (icc, chunks) = reassembledICC(jpeg)
        #expect(chunks == 1)
        #expect(icc == img.iccProfile)
        // JFIF APP0 right after SOI (as iPhones write), then APP1 Exif; one APP0 only.
        let segs = jpegSegments(jpeg)
        #expect(segs.first?.0 == 0xE0)
        #expect(segs.first.map { Array($0.1.prefix(5)) } == Array("JFIF".utf8) + [0])
        #expect(segs.dropFirst().first?.0 == 0xE1)
        #expect(segs.dropFirst().first.map { Array($0.1.prefix(6)) } == Array("Exif".utf8) + [0, 0])
        #expect(segs.filter { $0.0 == 0xE0 }.count == 1)
    }

    @Test(arguments: [(JPEGSubsampling?.none, 95, 0), (.none, 80, 2), (.some(.s422), 90, 1), (.some(.s444), 50, 0)])
    func subsamplingChoice(_ ss: JPEGSubsampling?, _ q: Int, _ tjCode: Int) throws {
        let jpeg = try JPEGWriter.encode(EncodeFixtures.image(thumbnail: false), options: .init(quality: q, subsampling: ss))
        #expect(try TurboJPEG(.decompress).header(jpeg).subsampling == tjCode)   // TJSAMP_444=0, 422=1, 420=2
    }

    @Test func largeICCSplitsIntoChunks() throws {
        let big = EncodeFixtures.largeProfile
        #expect(big.count > 65519)
        let jpeg = try JPEGWriter.encode(EncodeFixtures.image(icc: big))
        let (icc, chunks) = reassembledICC(jpeg)
        #expect(chunks == (big.count + 65518) / 65519)
        #expect(icc == big)
        for s in jpegSegments(jpeg) where s.0 == 0xE2 { #expect(s.1.count <= 65533) }
    }

    @Test func sixteenBitInputIsRounded() throws {
        var img = EncodeFixtures.image(thumbnail: false)
        img.bitsPerSample = 16
        img.pixels16 = img.pixels8.map { UInt16($0) * 257 }
        img.pixels8 = []
        let jpeg = try JPEGWriter.encode(img, options: .init(quality: 100))
        let (_, _, px) = try TurboJPEG(.decompress).decompress(jpeg)
        #expect(EncodeFixtures.psnr(EncodeFixtures.gradient8(width: 128, height: 96), px) > 45)
    }

    @Test func stripMetadataKeepsOnlyICC() throws {
        let jpeg = try JPEGWriter.encode(EncodeFixtures.image(), options: .init(stripMetadata: true))
        let segs = jpegSegments(jpeg)
        #expect(!segs.contains { $0.0 == 0xE1 })
        #expect(reassembledICC(jpeg).bytes == EncodeFixtures.sRGBProfile)
    }

    @Test func invalidInputsThrow() {
        var img = EncodeFixtures.image()
        img.pixels8.removeLast()
        #expect(throws: EncodeError.self) { try JPEGWriter.encode(img) }
        #expect(throws: EncodeError.self) { try JPEGWriter.encode(EncodeFixtures.image(), options: .init(quality: 0)) }
        var tooBigXMP = EncodeFixtures.image()
        tooBigXMP.exif.xmp = String(repeating: "x", count: 70000)
        #expect(throws: EncodeError.self) { try JPEGWriter.encode(tooBigXMP) }
    }

    @Test func exiftoolReadsExifThumbnailAndXMP() throws {
        let jpeg = try JPEGWriter.encode(EncodeFixtures.image(), options: .init(dateTime: "2024:01:02 03:04:05"))
        guard let j = EncodeFixtures.exiftool(jpeg) else { return }
        #expect(j["Make"] as? String == "Canon")
        #expect(j["Model"] as? String == "Canon EOS 6D")
        #expect(j["Orientation"] as? Int == 1)
        #expect(j["DateTimeOriginal"] as? String == "2021:06:05 14:03:22")
        #expect(j["ModifyDate"] as? String == "2024:01:02 03:04:05")
        #expect(j["Software"] as? String == "Darkroom \(DarkroomVersion.string)")
        #expect(j["ISO"] as? Int == 400)
        #expect(j["FNumber"] as? Double == 8)
        #expect(j["ExposureTime"] as? Double == 0.004)
        #expect(j["ExposureCompensation"] as? Double == -0.7)
        #expect(j["FocalLength"] as? Double == 50)
        #expect(j["LensModel"] as? String == "EF24-105mm f/4L IS USM")
        #expect(j["SerialNumber"] as? String == "012345")
        #expect(j["ColorSpace"] as? Int == 1)
        #expect(j["ExifImageWidth"] as? Int == 128)
        #expect(j["ThumbnailLength"] as? Int ?? 0 > 0)
        #expect(j["ThumbnailImage"] != nil)
        #expect(j["Rating"] as? Int == 4)
        #expect(j["ProfileDescription"] != nil)
        #expect(abs((j["GPSLatitude"] as? Double ?? 0) - 48.8584) < 1e-5)
        #expect(abs((j["GPSLongitude"] as? Double ?? 0) + 2.2945) < 1e-5)
        #expect(j["Warning"] == nil)
    }

    @Test func oversizedThumbnailStillFitsOneAPP1() throws {
        var img = EncodeFixtures.image()
        var rng = SystemRandomNumberGenerator()
        let (tw, th) = (480, 360)   // noise: a q85 JPEG of this is far over 64 KB
        img.thumbnail = Thumbnail(width: tw, height: th, pixels: (0..<(tw * th * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let jpeg = try JPEGWriter.encode(img)
        let exif = jpegSegments(jpeg).first { $0.0 == 0xE1 }
        #expect((exif?.1.count ?? .max) <= 65533)
        let s = try OutputInspector.inspect(jpeg)
        #expect(s.exif["Make"] == "Canon")
        // IFD1 holds the 160 × 120-class reduction of the (HEIF-sized) thumbnail.
        if let t = s.thumbnail { #expect(t == .init(width: 160, height: 120)) }
    }
}
