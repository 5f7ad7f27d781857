import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// `ProfileLibrary`: external `.dcp` files, names, search by UniqueCameraModel, errors.
@Suite("Profile library")
struct ProfileLibraryTests {
    static func tempDir() -> String {
        let path = NSTemporaryDirectory() + "darkroom-profiles-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path + "/Profiles", withIntermediateDirectories: true)
        return path
    }

    /// A `.dcp`: a DNGWriter file whose TIFF magic is replaced by the DCP magic ("IIRC").
    static func writeDCP(to path: String, name: String, model: String, scale: Double) throws {
        var raw = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        raw.metadata.uniqueCameraModel = model
        raw.metadata.profile?.name = name
        raw.metadata.profile?.colorMatrix1 = scale * SyntheticChart.colorMatrix1
        try DNGWriter.write(raw, to: path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[2] = 0x52; bytes[3] = 0x43
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static var metadata: RawMetadata {
        var m = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65).metadata
        var extra = CameraProfile()
        extra.name = "Extra Look"
        extra.colorMatrix1 = SyntheticChart.colorMatrix2
        m.extraProfiles = [extra]
        return m
    }

    @Test func resolveAndList() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.writeDCP(to: dir + "/Profiles/b-match.dcp", name: "External Match", model: "Darkroom Synthetic Chart", scale: 0.5)
        try Self.writeDCP(to: dir + "/Profiles/a-other.dcp", name: "Other Camera", model: "Some Other Camera", scale: 0.25)
        try Data("not a profile".utf8).write(to: URL(fileURLWithPath: dir + "/Profiles/c-junk.dcp"))
        let dirs = [dir + "/Profiles"]
        let m = Self.metadata

        #expect(ProfileLibrary.list(metadata: m, searchDirectories: dirs) == ["Darkroom Synthetic", "Extra Look", "External Match"])
        #expect(ProfileLibrary.list(metadata: m, searchDirectories: []) == ["Darkroom Synthetic", "Extra Look"])

        // Default: the matching external profile.
        let auto = try #require(try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: nil, searchDirectories: dirs))
        #expect(auto.name == "External Match")
        #expect(auto.colorMatrix1?.m[0] == 0.4299)   // 0.5 × 0.8598, as stored (1/10000)
        #expect(try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: nil, searchDirectories: []) == nil)

        // By name: embedded, extra (case-insensitive), external.
        #expect(try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: "Darkroom Synthetic", searchDirectories: dirs) == m.profile)
        #expect(try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: "extra look", searchDirectories: dirs)?.name == "Extra Look")
        #expect(try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: "External Match", searchDirectories: dirs)?.name == "External Match")

        // An explicit file wins, whatever its camera model.
        let other = try #require(try ProfileLibrary.resolve(metadata: m, profilePath: dir + "/Profiles/a-other.dcp", profileName: "Extra Look", searchDirectories: dirs))
        #expect(other.name == "Other Camera")
        #expect(other.calibrationIlluminant1 == 17 && other.calibrationIlluminant2 == 21)
    }

    @Test func errorsNameTheFile() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let m = Self.metadata
        let missing = dir + "/missing.dcp"
        #expect { _ = try ProfileLibrary.resolve(metadata: m, profilePath: missing, profileName: nil, searchDirectories: []) } throws: { e in
            "\(e)".hasPrefix(missing + ": cannot read camera profile") && !"\(e)".contains("\n")
        }
        let dng = dir + "/plain.dng"
        try DNGWriter.write(SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage(), to: dng)
        #expect { _ = try ProfileLibrary.resolve(metadata: m, profilePath: dng, profileName: nil, searchDirectories: []) } throws: { e in
            "\(e)".hasPrefix(dng + ": not a DNG camera profile (.dcp)")
        }
        #expect(throws: ProfileLibraryError.nameNotFound(name: "Nope", offered: ["Darkroom Synthetic", "Extra Look"])) {
            _ = try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: "Nope", searchDirectories: [])
        }
        #expect(ProfileLibraryError.nameNotFound(name: "Nope", offered: ["A", "B"]).description
                == "camera profile 'Nope' not found; offered: A, B")
    }

    /// A real Adobe Standard profile (HueSatMap 90×30×1, LookTable 36×8×16) resolves to tables
    /// whose output is finite for every input; skipped without ../shared/samples.
    @Test func realAdobeStandardTables() throws {
        let path = TestSupport.sharedSamplesPath.appendingPathComponent("dng/photoprism_canon_eos_6d.dng").path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let m = try DNGMetadataReader.read(contentsOf: path)
        #expect(ProfileLibrary.list(metadata: m, searchDirectories: []) == ["Adobe Standard"])
        let profile = try #require(try ProfileLibrary.resolve(metadata: m, profilePath: nil, profileName: "Adobe Standard", searchDirectories: []))
        let model = try DNGColorModel(metadata: m, profile: profile)
        let w = model.solve(.asShot).weight1
        let tables = try #require(ProfileRenderTables(profile: profile, weight1: w))
        #expect(tables.hueSatMap?.hueDivisions == 90 && tables.hueSatMap?.saturationDivisions == 30)
        #expect(tables.lookTable?.valueDivisions == 16)
        #expect(tables.warnings.isEmpty)
        var changed = 0
        for r in stride(from: Float(0), through: 1, by: 0.125) {
            for g in stride(from: Float(0), through: 1, by: 0.125) {
                for b in stride(from: Float(0), through: 1, by: 0.125) {
                    let out = tables.apply(SIMD3(r, g, b))
                    #expect(out.x.isFinite && out.y.isFinite && out.z.isFinite && out.min() >= 0)
                    let d = out - SIMD3<Float>(r, g, b)
                    if max(d.max(), -d.min()) > 1e-3 { changed += 1 }
                }
            }
        }
        #expect(changed > 100)   // the look really changes colours
    }
}
