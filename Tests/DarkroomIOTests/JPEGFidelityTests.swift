import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// JPEG as iPhones write it (JFIF APP0 first), and XMP carried from a raw file without Camera
/// Raw develop settings (JPEG and HEIF).
@Suite("JPEG and XMP fidelity")
struct JPEGFidelityTests {
    /// A DNG-style packet: Camera Raw settings as attributes and as elements, beside a rating and keywords.
    static let rawXMP = """
    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
     <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
       xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" xmp:Rating="4" crs:Version="15.0" crs:Exposure2012="+0.50"
       crs:WhiteBalance="As Shot">
      <crs:ToneCurvePV2012><rdf:Seq><rdf:li>0, 0</rdf:li><rdf:li>255, 255</rdf:li></rdf:Seq></crs:ToneCurvePV2012>
      <crs:Look crs:Name="Adobe Color"><crs:Parameters crs:Version="15.0"/></crs:Look>
      <crs:HasCrop/>
      <dc:subject><rdf:Bag><rdf:li>harbour</rdf:li></rdf:Bag></dc:subject>
     </rdf:Description>
    </rdf:RDF></x:xmpmeta>
    """

    @Test func cameraRawSettingsAreRemoved() {
        let out = XMPDevelopSettings.removingCameraRawSettings(Self.rawXMP)
        #expect(!out.contains("crs:") && !out.contains(XMPDevelopSettings.namespace))
        #expect(out.contains(#"xmp:Rating="4""#) && out.contains("<rdf:li>harbour</rdf:li>"))
        #expect(out.contains(#"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmp:Rating="4">"#))
        // No crs: → the very same string.
        let plain = EncodeFixtures.exif().xmp ?? ""
        #expect(XMPDevelopSettings.removingCameraRawSettings(plain) == plain)
    }

    static func image() -> RenderedImage {
        var img = EncodeFixtures.image(width: 96, height: 64)
        img.exif.xmp = Self.rawXMP
        return img
    }

    /// exiftool reads the rating and keywords but no Camera Raw tag, in JPEG and in HEIF.
    @Test func exiftoolSeesNoCameraRawSettings() throws {
        let img = Self.image()
        for bytes in [try JPEGWriter.encode(img, options: .init(dateTime: "2024:01:02 03:04:05")),
                      try HEIFWriter.encode(img, options: .init(dateTime: "2024:01:02 03:04:05"))] {
            guard let j = EncodeFixtures.exiftool(bytes, args: ["-j", "-G1", "-XMP:all"]) else { return }
            #expect(j["XMP-xmp:Rating"] as? Int == 4)
            #expect("\(j["XMP-dc:Subject"] ?? "")" == "harbour")
            #expect(!j.keys.contains { $0.hasPrefix("XMP-crs:") }, "\(j.keys.sorted())")
        }
    }

    /// SOI, then JFIF APP0, then APP1 Exif (and the rest), with or without metadata; exiftool
    /// and libjpeg read it.
    @Test(arguments: [false, true])
    func jfifComesFirst(strip: Bool) throws {
        let jpeg = try JPEGWriter.encode(Self.image(), options: .init(stripMetadata: strip, dateTime: "2024:01:02 03:04:05"))
        let walk = try JPEGMarkerWalker(jpeg[...])
        let jfif = try #require(walk.app(0xE0, signature: Array("JFIF".utf8) + [0]).first)
        #expect(Array(jpeg[0..<4]) == [0xFF, 0xD8, 0xFF, 0xE0] && jfif.offset < 12)
        #expect(Array(jfif.body.prefix(2)) == [1, 1])   // JFIF 1.01
        let app1 = walk.app(0xE1, signature: JPEGSegment.exifSignature)
        #expect(app1.isEmpty == strip)
        if let exif = app1.first { #expect(exif.offset > jfif.offset) }
        #expect((try TurboJPEG(.decompress).decompress(jpeg)).width == 96)
        if let j = EncodeFixtures.exiftool(jpeg, args: ["-j", "-n", "-JFIFVersion", "-Make", "-ProfileDescription"]) {
            #expect("\(j["JFIFVersion"] ?? "")" == "1 1")   // 1.01 (-n prints the two bytes)
            #expect((j["Make"] as? String == "Canon") == !strip)
            #expect(j["ProfileDescription"] != nil)
        }
    }
}
