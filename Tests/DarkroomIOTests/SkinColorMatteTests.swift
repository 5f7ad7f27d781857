import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// The colour-only skin plane is Darkroom's own (`urn:org:darkroom:aux:skincolormatte`), never
/// Apple's segmentation URN; libheif, heif-info and exiftool read the new URN back.
@Suite("Skin colour matte URN")
struct SkinColorMatteTests {
    static let darkroomURN = "urn:org:darkroom:aux:skincolormatte"
    static let appleSkinURN = "urn:com:apple:photo:2019:aux:semanticskinmatte"

    /// The computed plane as `FileDeveloper` makes it for `--mattes skin-color`.
    static func image() -> RenderedImage {
        var img = EncodeFixtures.image(width: 96, height: 64)
        img.mattes = [MatteBuilder.skin(image: img, space: .srgb)]
        return img
    }

    @Test func kindsAndURNs() {
        #expect(MatteKind.skinColor.urn == Self.darkroomURN)
        #expect(MatteKind(urn: Self.darkroomURN) == .skinColor)
        // Apple's URN stays for a supplied (segmentation) skin plane.
        #expect(MatteKind.skin.urn == Self.appleSkinURN)
        #expect(!MatteBuilder.computableKinds.contains(.skin)) // --mattes skin is the neural plane
        #expect(MatteBuilder.skin(image: EncodeFixtures.image(width: 8, height: 8), space: .srgb).kind == .skinColor)
        // Every computed kind has a Darkroom URN: no heuristic under an Apple URN.
        for k in MatteBuilder.computableKinds { #expect(k.urn.hasPrefix("urn:org:darkroom:aux:"), "\(k)") }
        // Darkroom's XMP: the apdi elements, no Apple matte-version element.
        let xmp = MatteXMP.packet(for: .skinColor)
        #expect(MatteXMP.auxiliaryImageType(in: xmp) == Self.darkroomURN)
        #expect(xmp == MatteXMP.packet(for: .gamut).replacingOccurrences(of: MatteKind.gamut.urn, with: Self.darkroomURN))
        #expect(!xmp.contains("semanticSegmentationMatte"))
    }

    @Test func heifCarriesDarkroomURN() throws {
        let heic = try HEIFWriter.encode(Self.image(), options: .init(dateTime: "2024:01:02 03:04:05"))
        // libheif's API (heif_image_handle_get_auxiliary_type).
        let s = try OutputInspector.inspect(heic)
        #expect(s.auxiliaryPlanes.map(\.urn) == [Self.darkroomURN])
        _ = try OutputInspector.decodeAuxiliary(heic, urn: Self.darkroomURN)
        #expect(!String(decoding: heic, as: UTF8.self).contains(Self.appleSkinURN))
        if let dump = AppleFixture.run("/usr/bin/heif-info", ["-d"], bytes: heic, suffix: "heic") {
            #expect(dump.status == 0)
            #expect(dump.out.contains("aux type: \(Self.darkroomURN)"))
        }
        // exiftool: the auxC property and the matte's XMP item.
        if let j = EncodeFixtures.exiftool(heic, args: ["-j", "-a", "-G1", "-ee"]) {
            #expect(j["QuickTime:AuxiliaryImageType"] as? String == Self.darkroomURN)
            #expect(j["XMP-apdi:AuxiliaryImageType"] as? String == Self.darkroomURN)
        }
    }

    @Test func jpegCarriesDarkroomURN() throws {
        let jpeg = try JPEGWriter.encode(Self.image(), options: .init(dateTime: "2024:01:02 03:04:05"))
        let s = try OutputInspector.inspect(jpeg)
        #expect(s.auxiliaryPlanes.map(\.urn) == [Self.darkroomURN])
        #expect(!String(decoding: jpeg, as: UTF8.self).contains(Self.appleSkinURN))
        // exiftool -ee reads the XMP of the MPF secondary image.
        if let j = EncodeFixtures.exiftool(jpeg, args: ["-j", "-a", "-G3", "-ee", "-XMP:AuxiliaryImageType"]) {
            #expect(j["Doc2:AuxiliaryImageType"] as? String == Self.darkroomURN)
        }
    }
}
