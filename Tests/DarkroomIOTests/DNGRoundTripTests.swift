import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// DNGWriter → DNGMetadataReader (and libtiff) round trips.
@Suite struct DNGRoundTripTests {
    enum Layout: String, CaseIterable, Sendable { case strips, tiles }

    static let cases: [(CFAPattern, Int, Layout)] = CFAPattern.all.flatMap { cfa in
        [12, 14, 16].flatMap { bits in Layout.allCases.map { (cfa, bits, $0) } }
    }

    /// Compares metadata: exact for integers, strings, bytes; reals within `tol`
    /// (the writer stores k/10000 exactly, so values that are multiples of 1/10000 come back to 1e-9;
    /// matrices are held to that too, tighter than the 1e-4 required).
    static func expectEqual(_ a: RawMetadata, _ b: RawMetadata, tol: Double = 1e-9,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        func close(_ x: [Double]?, _ y: [Double]?, _ t: Double = tol) -> Bool {
            guard let x, let y else { return x == nil && y == nil }
            return x.count == y.count && zip(x, y).allSatisfy { abs($0 - $1) <= t * max(1, abs($0)) }
        }
        func m(_ x: Matrix3?) -> [Double]? { x?.m }
        #expect(a.fileFormat == b.fileFormat, sourceLocation: sourceLocation)
        #expect(a.dngVersion == b.dngVersion, sourceLocation: sourceLocation)
        #expect(a.uniqueCameraModel == b.uniqueCameraModel, sourceLocation: sourceLocation)
        #expect(a.exif == b.exif, sourceLocation: sourceLocation)
        #expect(a.sensorWidth == b.sensorWidth && a.sensorHeight == b.sensorHeight, sourceLocation: sourceLocation)
        #expect(a.activeArea == b.activeArea, sourceLocation: sourceLocation)
        #expect(a.defaultCrop == b.defaultCrop, sourceLocation: sourceLocation)
        #expect(a.samplesPerPixel == b.samplesPerPixel, sourceLocation: sourceLocation)
        #expect(a.cfa == b.cfa, sourceLocation: sourceLocation)
        #expect(a.bitsPerSample == b.bitsPerSample, sourceLocation: sourceLocation)
        #expect(a.compression == b.compression, sourceLocation: sourceLocation)
        #expect(a.blackLevelRepeatRows == b.blackLevelRepeatRows, sourceLocation: sourceLocation)
        #expect(a.blackLevelRepeatColumns == b.blackLevelRepeatColumns, sourceLocation: sourceLocation)
        #expect(close(a.blackLevel, b.blackLevel), sourceLocation: sourceLocation)
        #expect(close(a.blackLevelDeltaH, b.blackLevelDeltaH), sourceLocation: sourceLocation)
        #expect(close(a.blackLevelDeltaV, b.blackLevelDeltaV), sourceLocation: sourceLocation)
        #expect(a.whiteLevel == b.whiteLevel, sourceLocation: sourceLocation)
        #expect(a.linearizationTableCount == b.linearizationTableCount, sourceLocation: sourceLocation)
        #expect(a.orientation == b.orientation, sourceLocation: sourceLocation)
        #expect(close(a.asShotNeutral, b.asShotNeutral), sourceLocation: sourceLocation)
        #expect(a.asShotWhiteXY.map { [$0.x, $0.y] } == nil ? b.asShotWhiteXY == nil
                : close(a.asShotWhiteXY.map { [$0.x, $0.y] }, b.asShotWhiteXY.map { [$0.x, $0.y] }), sourceLocation: sourceLocation)
        #expect(close(a.analogBalance, b.analogBalance), sourceLocation: sourceLocation)
        #expect(close(m(a.cameraCalibration1), m(b.cameraCalibration1), 1e-9), sourceLocation: sourceLocation)
        #expect(close(m(a.cameraCalibration2), m(b.cameraCalibration2), 1e-9), sourceLocation: sourceLocation)
        #expect(a.cameraCalibrationSignature == b.cameraCalibrationSignature, sourceLocation: sourceLocation)
        #expect(close(a.baselineExposure.map { [$0] }, b.baselineExposure.map { [$0] }), sourceLocation: sourceLocation)
        #expect(close(a.baselineNoise.map { [$0] }, b.baselineNoise.map { [$0] }), sourceLocation: sourceLocation)
        #expect(close(a.baselineSharpness.map { [$0] }, b.baselineSharpness.map { [$0] }), sourceLocation: sourceLocation)
        #expect(close(a.linearResponseLimit.map { [$0] }, b.linearResponseLimit.map { [$0] }), sourceLocation: sourceLocation)
        #expect(close(a.noiseProfile, b.noiseProfile, 1e-12), sourceLocation: sourceLocation)
        let p = a.profile, q = b.profile
        #expect((p == nil) == (q == nil), sourceLocation: sourceLocation)
        #expect(p?.name == q?.name, sourceLocation: sourceLocation)
        #expect(p?.calibrationIlluminant1 == q?.calibrationIlluminant1, sourceLocation: sourceLocation)
        #expect(p?.calibrationIlluminant2 == q?.calibrationIlluminant2, sourceLocation: sourceLocation)
        #expect(close(m(p?.colorMatrix1), m(q?.colorMatrix1), 1e-9), sourceLocation: sourceLocation)
        #expect(close(m(p?.colorMatrix2), m(q?.colorMatrix2), 1e-9), sourceLocation: sourceLocation)
        #expect(close(m(p?.forwardMatrix1), m(q?.forwardMatrix1), 1e-9), sourceLocation: sourceLocation)
        #expect(close(m(p?.forwardMatrix2), m(q?.forwardMatrix2), 1e-9), sourceLocation: sourceLocation)
        #expect(close(p?.baselineExposureOffset.map { [$0] }, q?.baselineExposureOffset.map { [$0] }), sourceLocation: sourceLocation)
        #expect(a.opcodeList1 == b.opcodeList1, sourceLocation: sourceLocation)
        #expect(a.opcodeList2 == b.opcodeList2, sourceLocation: sourceLocation)
        #expect(a.opcodeList3 == b.opcodeList3, sourceLocation: sourceLocation)
        #expect(a.previews == b.previews, sourceLocation: sourceLocation)
        #expect(a.warnings == b.warnings, sourceLocation: sourceLocation)
    }

    @Test(arguments: cases)
    func roundTripCFA(_ cfa: CFAPattern, _ bits: Int, _ layout: Layout) throws {
        let image = DNGTestSupport.image(cfa: cfa, bits: bits)
        let path = DNGTestSupport.tempPath("rt-\(cfa)-\(bits)-\(layout).dng")
        defer { if ProcessInfo.processInfo.environment["KEEP_DNG"] == nil { unlink(path) } else { print("KEPT \(path)") } }
        let options = layout == .tiles ? DNGWriteOptions(tileSize: 32) : DNGWriteOptions(rowsPerStrip: 16)
        try DNGWriter.write(image, to: path, options: options)

        let md = try DNGMetadataReader.read(contentsOf: path)
        Self.expectEqual(md, image.metadata)

        let view = try #require(DNGTestSupport.libtiffRead(path, subIFD: false))
        #expect(view.width == 70 && view.height == 50 && view.bits == 16 && view.spp == 1)
        #expect(view.photometric == 32803)
        #expect(view.isTiled == (layout == .tiles))
        #expect(view.cfaPattern == cfa.colors.map { $0.rawValue })
        #expect(view.dngVersion == [1, 4, 0, 0])
        #expect(view.make == "Darkroom")
        #expect(view.whiteLevel == [UInt32((1 << bits) - 1)])
        #expect(view.pixels == image.pixels)
    }

    @Test func roundTripLinearRawWithPreview() throws {
        var image = DNGTestSupport.image(cfa: nil, bits: 16, width: 40, height: 24, spp: 3)
        image.metadata.asShotNeutral = nil
        image.metadata.asShotWhiteXY = Chromaticity(x: 0.3457, y: 0.3585)
        let preview = DNGPreview(width: 10, height: 6, rgb: (0..<180).map { UInt8($0) })
        let path = DNGTestSupport.tempPath("rt-linear.dng")
        defer { if ProcessInfo.processInfo.environment["KEEP_DNG"] == nil { unlink(path) } else { print("KEPT \(path)") } }
        try DNGWriter.write(image, to: path, options: DNGWriteOptions(rowsPerStrip: 5, preview: preview))

        var md = try DNGMetadataReader.read(contentsOf: path)
        #expect(md.previews.count == 1)
        #expect(md.previews.first?.width == 10 && md.previews.first?.height == 6 && md.previews.first?.length == 180)
        #expect(md.previews.first?.kind == "uncompressed")
        if let p = md.previews.first {
            let bytes = try TIFFFile.readBytes(path: path)
            #expect(Array(bytes[p.offset..<(p.offset + p.length)]) == preview.rgb)
        }
        md.previews = []
        Self.expectEqual(md, image.metadata)

        // Rationals are stored as k/10000 (or n/1 for integers).
        let file = try TIFFFile(bytes: TIFFFile.readBytes(path: path))
        let ifd0Tags = try #require(file.ifd0)
        let cm1 = try #require(try ifd0Tags.rationals(TIFFTag.colorMatrix1))
        #expect(cm1.map(\.numerator) == [8716, -2692, -907, -4446, 12201, 2466, -556, 1205, 6757])
        #expect(cm1.allSatisfy { $0.denominator == 10000 })
        #expect(try ifd0Tags.rationals(TIFFTag.asShotWhiteXY) == [TIFFRational(3457, 10000), TIFFRational(3585, 10000)])
        let rawTags = try #require(file.ifd0?.subIFDs.first)
        #expect(try rawTags.rationals(TIFFTag.blackLevel) == [TIFFRational(64, 1), TIFFRational(64, 1), TIFFRational(64, 1)])

        let ifd0 = try #require(DNGTestSupport.libtiffRead(path, subIFD: false))
        #expect(ifd0.subIFDCount == 1 && ifd0.width == 10 && ifd0.height == 6 && ifd0.bits == 8 && ifd0.spp == 3)
        #expect(ifd0.subfileType == 1)
        let raw = try #require(DNGTestSupport.libtiffRead(path, subIFD: true))
        #expect(raw.width == 40 && raw.height == 24 && raw.bits == 16 && raw.spp == 3 && raw.photometric == 34892)
        #expect(raw.whiteLevel == [65535, 65535, 65535])
        #expect(raw.pixels == image.pixels)
    }

    @Test func rejectsBadInputAndLeavesNoFile() throws {
        let image = DNGTestSupport.image(cfa: .rggb, bits: 12)
        let path = DNGTestSupport.tempPath("bad-tiles.dng", subdirectory: "bad")
        #expect(throws: TIFFError.self) { try DNGWriter.write(image, to: path, options: DNGWriteOptions(tileSize: 20)) }
        #expect(!FileManager.default.fileExists(atPath: path))
        let dir = (path as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".tmp-") }   // AtomicWriter.temporaryName()
        #expect(leftovers.isEmpty)
        // Unwritable directory: error names the file, no temp left behind.
        do {
            try DNGWriter.write(image, to: "/nonexistent-dir/x.dng")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent-dir/x.dng: "))
        }
    }

    /// Writing replaces an existing file atomically (the old content is gone, new one readable).
    @Test func overwritesAtomically() throws {
        let path = DNGTestSupport.tempPath("overwrite.dng")
        defer { unlink(path) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try DNGWriter.write(DNGTestSupport.image(cfa: .gbrg, bits: 14), to: path)
        #expect(try DNGMetadataReader.read(contentsOf: path).cfa == .gbrg)
    }
}
