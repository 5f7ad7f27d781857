import DarkroomCore
import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomIO

/// `PreviewExtractor`: embedded previews are validated by decoding them, corrupt ones are never
/// copied out, and the fallback render is the develop pipeline with profile lookup.
@Suite("Preview extractor")
struct PreviewExtractorTests {
    /// A Canon 6D DNG with two JPEG previews (256x171 and 1024x683), when ../shared/samples is present.
    static let canon = TestSupport.sharedSamples("dng")?.appendingPathComponent("photoprism_canon_eos_6d.dng").path
    static var haveCanon: Bool { canon.map(FileManager.default.fileExists) ?? false }

    /// A copy of `source` with an EOI marker written into the middle of each preview listed in
    /// `corrupt` (libjpeg then meets the end of the image in the middle of the scan).
    static func corrupted(_ source: String, previews corrupt: [EmbeddedPreview], in dir: String) throws -> String {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        for p in corrupt { bytes[p.offset + p.length / 2] = 0xFF; bytes[p.offset + p.length / 2 + 1] = 0xD9 }
        let path = dir + "/corrupt.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: haveCanon)) func largestPreviewCopiedByteForByte() throws {
        let path = try #require(Self.canon)
        let p = try PreviewExtractor.preview(path: path, longSide: 256)
        #expect(p.source == .embeddedPreview && p.width == 1024 && p.height == 683 && p.refused.isEmpty)
        #expect(p.summary == "embedded 1024x683 JPEG preview")
        let md = try RawDecoder.metadata(path: path)
        let largest = try #require(md.previews.first { $0.width == 1024 })
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(p.jpeg == Array(file[largest.offset..<(largest.offset + largest.length)]))
    }

    /// The corrupt 1024x683 preview is refused (the 256x171 one is used); with both corrupt
    /// (LibRaw's thumbnail is the same damaged JPEG) the file is rendered.
    @Test(.enabled(if: haveCanon)) func corruptPreviewIsNeverCopied() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let source = try #require(Self.canon)
        let previews = try RawDecoder.metadata(path: source).previews.sorted { $0.width > $1.width }
        #expect(previews.map(\.width) == [1024, 256])

        let oneBad = try Self.corrupted(source, previews: [previews[0]], in: dir)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: oneBad)))
        let damaged = Array(bytes[previews[0].offset..<(previews[0].offset + previews[0].length)])
        guard case .failure = PreviewExtractor.validate(damaged) else { Issue.record("damaged preview validated"); return }
        let p1 = try PreviewExtractor.preview(path: oneBad, longSide: 256)
        #expect(p1.source == .embeddedPreview && p1.width == 256 && p1.height == 171)
        #expect(p1.refused.count == 1 && p1.refused[0].hasPrefix("1024x683 preview ("), "\(p1.refused)")
        #expect(p1.summary.contains("refused 1024x683 preview"))

        let allBad = try Self.corrupted(source, previews: previews, in: dir)
        let p2 = try PreviewExtractor.preview(path: allBad, longSide: 300)
        #expect(p2.source == .rendered(halfSizeBinned: false), "\(p2.summary)")   // LinearRaw: no CFA to bin
        #expect(p2.width == 300 && p2.height == 200)
        #expect(p2.refused.count >= 2)
        #expect(p2.jpeg != damaged)
        let decoded = try OutputInspector.decodeRGB8(p2.jpeg)
        #expect(decoded.width == 300 && decoded.height == 200)
    }

    /// Without a preview, the render is the develop pipeline's: the camera profile is looked up
    /// (a matching `.dcp` in the search directory changes the result), and the JPEG equals the
    /// develop render of the same plan box-filtered to the size.
    @Test func renderUsesProfileLookup() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let raw = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 200, height: 132).makeRawImage()
        let path = dir + "/chart.dng"
        try DNGWriter.write(raw, to: path)
        try FileManager.default.createDirectory(atPath: dir + "/Profiles", withIntermediateDirectories: true)
        let withoutProfile = try PreviewExtractor.preview(path: path, longSide: 150, profileSearchDirectories: [dir + "/Profiles"])
        // A profile for this camera whose colour matrices (another illuminant's) change the colours.
        var dcp = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        dcp.metadata.uniqueCameraModel = raw.metadata.uniqueCameraModel
        dcp.metadata.profile?.name = "External Match"
        dcp.metadata.profile?.colorMatrix1 = SyntheticChart.colorMatrix2
        dcp.metadata.profile?.colorMatrix2 = SyntheticChart.colorMatrix1
        dcp.metadata.profile?.forwardMatrix1 = nil
        dcp.metadata.profile?.forwardMatrix2 = nil
        try DNGWriter.write(dcp, to: dir + "/Profiles/match.dcp")
        var dcpBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/Profiles/match.dcp")))
        dcpBytes[2] = 0x52; dcpBytes[3] = 0x43   // DCP magic "IIRC"
        try Data(dcpBytes).write(to: URL(fileURLWithPath: dir + "/Profiles/match.dcp"))
        let p = try PreviewExtractor.preview(path: path, longSide: 150, profileSearchDirectories: [dir + "/Profiles"])
        #expect(p.source == .rendered(halfSizeBinned: false) && max(p.width, p.height) == 150, "\(p.summary)")
        #expect(p.jpeg != withoutProfile.jpeg)

        let decodedRaw = try RawDecoder.decode(path: path)
        var recipe = DevelopRecipe()
        recipe.thumbnailSize = 150
        recipe.bitsPerSample = 8
        let plan = try PlanBuilder.plan(for: decodedRaw, recipe: recipe, path: path, profileSearchDirectories: [dir + "/Profiles"])
        #expect(plan.profile?.name == "External Match")
        let developed = TileRenderer.render(decodedRaw, plan: plan)
        let thumbnail = try #require(developed.thumbnail)   // develop's own embedded thumbnail
        #expect(thumbnail.width == p.width && thumbnail.height == p.height)
        let expected = RenderedImage(width: thumbnail.width, height: thumbnail.height, bitsPerSample: 8, pixels8: thumbnail.pixels,
                                     colorSpaceName: developed.colorSpaceName, iccProfile: try ICCProfileFactory.profile(for: .srgb),
                                     exif: developed.exif)
        let expectedJPEG = try JPEGWriter.encode(expected, options: JPEGOptions(dateTime: expected.exif.dateTimeOriginal ?? ""))
        let firstDifference = zip(p.jpeg, expectedJPEG).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(p.jpeg.count == expectedJPEG.count && firstDifference == nil, "first difference at byte \(firstDifference ?? -1)")
        // Deterministic: the same input gives the same bytes (no "now" timestamp).
        #expect(p.jpeg == (try PreviewExtractor.preview(path: path, longSide: 150, profileSearchDirectories: [dir + "/Profiles"])).jpeg)
    }

    /// A small valid JPEG whose frame header is patched to claim 16000x16000 is refused from
    /// its header, before any decode allocates for it.
    @Test func implausibleSizeRefusedBeforeDecoding() throws {
        let image = RenderedImage(width: 16, height: 16, bitsPerSample: 8, pixels8: [UInt8](repeating: 128, count: 16 * 16 * 3),
                                  colorSpaceName: "srgb", iccProfile: [])
        var jpeg = try JPEGWriter.encode(image, options: JPEGOptions(stripMetadata: true, dateTime: ""))
        guard case .success(let size) = PreviewExtractor.validate(jpeg) else { Issue.record("valid JPEG refused"); return }
        #expect(size.width == 16 && size.height == 16)
        let sof = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0x3E; jpeg[sof + 6] = 0x80   // height 16000
        jpeg[sof + 7] = 0x3E; jpeg[sof + 8] = 0x80   // width 16000
        guard case .failure(let reason) = PreviewExtractor.validate(jpeg) else { Issue.record("16000x16000 accepted"); return }
        #expect(reason.description == "implausible size 16000x16000", "\(reason)")
    }

    @Test func unreadableFileFailsNamingIt() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let path = dir + "/noise.dng"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 89) }).write(to: URL(fileURLWithPath: path))
        do {
            _ = try PreviewExtractor.preview(path: path, longSide: 256)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix(path + ": ") && !error.description.contains("\n"), "\(error.description)")
        }
    }

    @Test func readRangeStaysInsideTheFile() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let path = dir + "/f"
        try Data([1, 2, 3, 4, 5]).write(to: URL(fileURLWithPath: path))
        #expect(PreviewExtractor.readRange(path: path, offset: 1, length: 4) == [2, 3, 4, 5])
        #expect(PreviewExtractor.readRange(path: path, offset: 1, length: 5) == nil)
        #expect(PreviewExtractor.readRange(path: path, offset: 6, length: 1) == nil)
        #expect(PreviewExtractor.readRange(path: path, offset: -1, length: 1) == nil)
        #expect(PreviewExtractor.readRange(path: path, offset: Int.max, length: Int.max) == nil)
    }
}
