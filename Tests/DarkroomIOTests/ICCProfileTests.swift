import CLCMS2
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

@Suite("ICC profiles")
struct ICCProfileTests {
    /// `<package root>/Profiles`.
    static let profilesDir: String = TestSupport.packageRoot.appendingPathComponent("Profiles").path

    // lcms2 pixel formats (macros Swift cannot import).
    static let typeRGBDouble: cmsUInt32Number = (1 << 22) | (4 << 16) | (3 << 3)     // TYPE_RGB_DBL
    static let typeLabDouble: cmsUInt32Number = (1 << 22) | (10 << 16) | (3 << 3)    // TYPE_Lab_DBL

    static func be32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }
    static func fourCC(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at..<at + 4], as: UTF8.self) }

    @Test("Header, tags and colorants", arguments: OutputColorSpace.allCases)
    func structure(space: OutputColorSpace) throws {
        let p = try ICCProfileFactory.profile(for: space)
        #expect(Int(Self.be32(p, 0)) == p.count)
        #expect(Array(p[8..<12]) == [4, 0x30, 0, 0])                 // v4.3
        #expect(Self.fourCC(p, 12) == "mntr" && Self.fourCC(p, 16) == "RGB " && Self.fourCC(p, 20) == "XYZ ")
        #expect(Self.fourCC(p, 36) == "acsp")
        #expect(Array(p[24..<36]) == [0x07, 0xE9, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])   // 2025-01-01 00:00:00
        #expect(p[84..<100].contains { $0 != 0 }, "profile ID is set")

        let h = try #require(p.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number(p.count)) })
        defer { cmsCloseProfile(h) }
        #expect(cmsGetEncodedICCversion(h) == 0x0430_0000)
        for tag in [cmsSigChromaticAdaptationTag, cmsSigMediaWhitePointTag, cmsSigRedTRCTag, cmsSigCopyrightTag] {
            #expect(cmsIsTag(h, tag) != 0)
        }
        // desc text.
        var buf = [CChar](repeating: 0, count: 256)
        _ = cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", &buf, 256)
        let desc = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(desc == space.displayName)
        // rXYZ/gXYZ/bXYZ are the columns of linearRGBToXYZD50 (ICC D50 vs our xy D50: < 4e-4).
        let m = space.linearRGBToXYZD50
        for (c, sig) in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag].enumerated() {
            let xyz = try #require(cmsReadTag(h, sig)).assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            #expect(abs(xyz.X - m[0, c]) < 4e-4 && abs(xyz.Y - m[1, c]) < 4e-4 && abs(xyz.Z - m[2, c]) < 4e-4,
                    "\(space) column \(c): \(xyz) vs \(m[0, c]) \(m[1, c]) \(m[2, c])")
        }
        // The MD5 ID is the one lcms2 computes for these bytes.
        var id1 = [UInt8](repeating: 0, count: 16), id2 = [UInt8](repeating: 0, count: 16)
        cmsGetHeaderProfileID(h, &id1)
        #expect(cmsMD5computeID(h) != 0)
        cmsGetHeaderProfileID(h, &id2)
        #expect(id1 == id2 && id1 == Array(p[84..<100]))
    }

    @Test("lcms2 transforms agree with ColorMath (ΔLab < 0.01 sRGB, < 0.04 wide gamut)", arguments: OutputColorSpace.allCases)
    func transform(space: OutputColorSpace) throws {
        let p = try ICCProfileFactory.profile(for: space)
        let rgbProfile = try #require(p.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number(p.count)) })
        defer { cmsCloseProfile(rgbProfile) }
        let lab = try #require(cmsCreateLab4Profile(nil))
        defer { cmsCloseProfile(lab) }
        let xf = try #require(cmsCreateTransform(rgbProfile, Self.typeRGBDouble, lab, Self.typeLabDouble,
                                                 cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), cmsUInt32Number(cmsFLAGS_NOOPTIMIZE)))
        defer { cmsDeleteTransform(xf) }
        var worst = 0.0
        for rgb in [SIMD3(1.0, 0, 0), SIMD3(0, 1.0, 0), SIMD3(0, 0, 1.0), SIMD3(1.0, 1, 1), SIMD3(0.5, 0.5, 0.5),
                    SIMD3(0.2, 0.6, 0.9), SIMD3(0.02, 0.01, 0.03), SIMD3(0.9, 0.4, 0.1)] {
            // lcms2 takes RGB doubles in 0…1.
            var input = [rgb.x, rgb.y, rgb.z], output = [0.0, 0, 0]
            cmsDoTransform(xf, &input, &output, 1)
            let linear = SIMD3(space.transfer.decode(rgb.x), space.transfer.decode(rgb.y), space.transfer.decode(rgb.z))
            let ours = ColorMath.xyzToLab(space.linearRGBToXYZD50 * linear)
            let d = abs(ours - SIMD3(output[0], output[1], output[2])).max()
            worst = max(worst, d)
        }
        // sRGB-gamut spaces agree to 0.01. Wider gamuts reach 0.03 on their most saturated primaries:
        // lcms2 adapts to the ICC D50 (0.9642, 1, 0.8249), ColorMath to xy (0.34567, 0.35850), and
        // colorants are stored as s15Fixed16 — Lab magnifies both at chroma > 100.
        let limit = space.linearVariant == .srgbLinear ? 0.01 : 0.04
        #expect(worst < limit, "\(space): worst |ΔLab| \(worst)")
    }

    @Test("sRGB (255, 0, 0) → Lab via lcms2 matches ColorMath")
    func srgbRed() throws {
        let p = try ICCProfileFactory.profile(for: .srgb)
        let h = try #require(p.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number(p.count)) })
        defer { cmsCloseProfile(h) }
        let lab = try #require(cmsCreateLab4Profile(nil))
        defer { cmsCloseProfile(lab) }
        let typeRGB8: cmsUInt32Number = (4 << 16) | (3 << 3) | 1   // TYPE_RGB_8
        let xf = try #require(cmsCreateTransform(h, typeRGB8, lab, Self.typeLabDouble,
                                                 cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), cmsUInt32Number(cmsFLAGS_NOOPTIMIZE)))
        defer { cmsDeleteTransform(xf) }
        var input: [UInt8] = [255, 0, 0], output = [0.0, 0, 0]
        cmsDoTransform(xf, &input, &output, 1)
        let ours = ColorMath.xyzToLab(OutputColorSpace.srgb.linearRGBToXYZD50 * SIMD3(1, 0, 0))
        #expect(abs(ours.x - output[0]) < 0.01 && abs(ours.y - output[1]) < 0.01 && abs(ours.z - output[2]) < 0.01,
                "ours \(ours) lcms \(output)")
        // Published value of sRGB red in D50 Lab: (54.29, 80.80, 69.89) ± 0.05.
        #expect(abs(ours.x - 54.29) < 0.05 && abs(ours.y - 80.80) < 0.1 && abs(ours.z - 69.89) < 0.1, "\(ours)")
    }

    @Test("Profiles are byte-identical across generations and equal to the committed Profiles/ files")
    func deterministic() throws {
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try ICCProfileFactory.writeAll(to: Self.profilesDir)
        }
        for space in OutputColorSpace.allCases {
            let a = try ICCProfileFactory.generate(space)
            let b = try ICCProfileFactory.generate(space)
            #expect(a == b, "\(space)")
            let path = Self.profilesDir + "/" + space.iccFileName
            guard let file = FileManager.default.contents(atPath: path) else {
                Issue.record("missing \(path) (run with RECORD_GOLDEN=1)"); continue
            }
            #expect([UInt8](file) == a, "\(path) differs from a fresh generation")
        }
    }

    @Test("writeAll writes every profile; errors name the path")
    func writeAll() throws {
        let dir = NSTemporaryDirectory() + "darkroom-icc-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ICCProfileFactory.writeAll(to: dir)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(names == OutputColorSpace.allCases.map(\.iccFileName).sorted())
        #expect(throws: ICCError.self) { try ICCProfileFactory.writeAll(to: "/proc/darkroom-no/such") }
        let e = ICCError.write(path: "/x/sRGB.icc", reason: "denied")
        #expect(e.description == "/x/sRGB.icc: cannot write ICC profile (denied)")
    }
}

private func abs(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z)) }
