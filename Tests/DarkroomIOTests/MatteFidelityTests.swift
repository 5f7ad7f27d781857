import CHeif
import CLCMS2
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Mattes as iPhones write them: long side at most 2016 px, tagged with a linear grey ICC
/// profile in HEIF, and written even when empty.
@Suite("Matte fidelity to iPhone files")
struct MatteFidelityTests {
    @Test(arguments: [
        (4032, 3024, 2016, 1512),   // iPhone 12 MP: half size is exactly the cap
        (5712, 4284, 2016, 1512),   // the shared iPhone file's 24 MP frame and its mattes' ispe
        (6000, 4000, 2016, 1344), (4000, 6000, 1344, 2016),
        (4100, 100, 2016, 49),      // 2050 × 50 → 2016 × 49.17
        (1000, 700, 500, 350), (7, 5, 4, 3),
    ])
    func planeSizeIsHalfCappedAt2016(w: Int, h: Int, pw: Int, ph: Int) {
        let s = MatteBuilder.planeSize(width: w, height: h)
        #expect(s.width == pw && s.height == ph)
    }

    @Test func areaAverageWeightsCoverage() {
        // Two pixels → one: the mean. Three → two: 1.5 pixels each, the middle one split.
        #expect(MatteBuilder.areaAverage([0, 255], width: 2, height: 1, toWidth: 1, toHeight: 1) == [128])
        #expect(MatteBuilder.areaAverage([0, 90, 240], width: 3, height: 1, toWidth: 2, toHeight: 1) == [30, 190])
        #expect(MatteBuilder.areaAverage([10, 20, 30, 40], width: 2, height: 2, toWidth: 1, toHeight: 1) == [25])
    }

    /// A computed plane above the cap: 2016 px long, and (on a flat image) the same value as the
    /// half-size plane it was reduced from; the clipping plane becomes the clipped fraction.
    @Test func computedPlanesAreCapped() throws {
        let w = 4100, h = 100
        var img = RenderedImage(width: w, height: h, bitsPerSample: 8,
                                pixels8: [UInt8](repeating: 0, count: w * h * 3), colorSpaceName: "p3", iccProfile: [])
        for i in stride(from: 0, to: img.pixels8.count, by: 3) { img.pixels8[i] = 200; img.pixels8[i + 1] = 140; img.pixels8[i + 2] = 110 }
        let skin = MatteBuilder.skin(image: img, space: .p3)
        #expect(skin.width == 2016 && skin.height == 49)
        let small = MatteBuilder.skin(image: RenderedImage(width: 8, height: 8, bitsPerSample: 8,
                                                           pixels8: Array(img.pixels8.prefix(8 * 8 * 3)), colorSpaceName: "p3", iccProfile: []),
                                      space: .p3)
        #expect(skin.pixels.allSatisfy { $0 == small.pixels[0] } && small.pixels[0] > 0)
        let gamut = MatteBuilder.gamut(image: img, space: .srgb)
        #expect(gamut.width == 2016 && gamut.height == 49 && gamut.pixels.allSatisfy { $0 == 0 })
    }

    static func image(_ planes: [AuxiliaryPlane]) -> RenderedImage {
        var img = EncodeFixtures.image(width: 96, height: 64)
        img.mattes = planes
        return img
    }

    /// An lcms2 reading of a profile: colour space, description, and whether the grey TRC is linear.
    static func lcmsRead(_ icc: [UInt8]) -> (gray: Bool, description: String, linear: Bool)? {
        guard let h = icc.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else { return nil }
        defer { cmsCloseProfile(h) }
        var buf = [CChar](repeating: 0, count: 256)
        _ = cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", &buf, 256)
        let trc = cmsReadTag(h, cmsSigGrayTRCTag).map { OpaquePointer($0) }
        let linear = trc.map { cmsIsToneCurveLinear($0) != 0 && abs(cmsEvalToneCurveFloat($0, 0.25) - 0.25) < 1e-4 } ?? false
        let description = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cmsGetColorSpace(h) == cmsSigGrayData, description, linear)
    }

    /// Our profile, read by lcms2 and exiftool: grey, linear, "Linear Gray" — what the iPhone file's
    /// mattes carry (read the same way from ../shared/samples/heif when present).
    @Test func linearGrayProfileMatchesIPhoneMattes() throws {
        let ours = try #require(Self.lcmsRead(LinearGrayProfile.bytes))
        #expect(ours.gray && ours.linear && ours.description == "Linear Gray")
        #expect(LinearGrayProfile.bytes.count % 4 == 0 && Array(LinearGrayProfile.bytes[36..<40]) == Array("acsp".utf8))
        if let j = EncodeFixtures.exiftool(LinearGrayProfile.bytes, args: ["-j", "-ProfileDescription", "-ColorSpaceData", "-ProfileClass", "-ProfileVersion"]) {
            #expect(j["ProfileDescription"] as? String == "Linear Gray")
            #expect(j["ColorSpaceData"] as? String == "GRAY")
            #expect(j["ProfileVersion"] as? String == "4.4.0")
        }
        let url = EncodeFixtures.samplesDir.appendingPathComponent("heif/libvips_apple-heic-gainmap.heic")
        guard let iphone = try? [UInt8](Data(contentsOf: url)) else { return }
        let layout = try #require(HEIFMetaLayout(iphone))
        for urn in [MatteKind.portraitEffects.urn, MatteKind.skin.urn, MatteKind.sky.urn] {
            let item = try #require(layout.associations.keys.first { layout.auxC(of: $0)?.urn == urn })
            let colr = try #require(layout.property("colr", of: item))
            #expect(String(decoding: colr.prefix(4), as: UTF8.self) == "prof")
            let theirs = try #require(Self.lcmsRead(Array(colr[4...])))
            #expect(theirs.gray && theirs.linear && theirs.description == "Linear Gray", "\(urn)")
        }
    }

    /// Every HEIF matte item carries the profile (libheif API on the auxiliary handles).
    @Test func heifMattesAreTaggedLinearGray() throws {
        let img = EncodeFixtures.image(mattes: [.portraitEffects, .skinColor, .gamut])
        let heic = try HEIFWriter.encode(img)
        try withPrimaryHandle(heic) { h in
            let handles = try OutputInspector.auxiliaryHandles(h)
            defer { for (a, _) in handles { heif_image_handle_release(a) } }
            #expect(handles.count == 3)
            for (aux, urn) in handles {
                var icc = [UInt8](repeating: 0, count: heif_image_handle_get_raw_color_profile_size(aux))
                _ = icc.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(aux, $0.baseAddress) }
                #expect(icc == LinearGrayProfile.bytes, "\(urn)")
            }
        }
    }

    /// Empty (all-zero) and full planes are written and read back, as iPhones write a semantic
    /// matte even when nothing was found.
    @Test func emptyMattesAreWritten() throws {
        let w = 48, h = 32
        let img = Self.image([AuxiliaryPlane(kind: .skinColor, width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h)),
                              AuxiliaryPlane(kind: .sky, width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h)),
                              AuxiliaryPlane(kind: .clipping, width: w, height: h, pixels: [UInt8](repeating: 255, count: w * h))])
        for bytes in [try HEIFWriter.encode(img), try JPEGWriter.encode(img)] {
            let s = try OutputInspector.inspect(bytes)
            #expect(s.auxiliaryPlanes.map(\.urn).sorted() == img.mattes.map(\.kind.urn).sorted(), "\(s.format)")
            for m in img.mattes {
                let back = try OutputInspector.decodeAuxiliary(bytes, urn: m.kind.urn)
                #expect(back.width == w && back.height == h)
                #expect(AppleFixture.maxAbsDiff(back.pixels, m.pixels) <= 1, "\(s.format) \(m.kind)")
            }
        }
    }
}
