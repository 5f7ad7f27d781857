import Testing
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// DNGMetadataReader on hand-built files: tag placement, ActiveArea/CFA origin, black level
/// types, EXIF/GPS, IlluminantData, previews, DCP profiles.
@Suite struct DNGMetadataReaderTests {
    /// A big- or little-endian DNG: IFD0 preview + EXIF + GPS, raw CFA image in a SubIFD.
    static func buildDNG(bigEndian: Bool, blackType: UInt16 = 3) -> [UInt8] {
        var b = TIFFTestBuilder(bigEndian: bigEndian)
        let pixels = b.append([UInt8](repeating: 0, count: 10 * 8 * 2))
        let jpeg = b.append([0xFF, 0xD8, 0xFF, 0xD9])
        let black: TIFFTestBuilder.Entry
        switch blackType {
        case 5: black = b.rational(TIFFTag.blackLevel, [(200, 2), (101, 1), (102, 1), (103, 1)])
        case 4: black = b.long(TIFFTag.blackLevel, [100, 101, 102, 103])
        default: black = b.short(TIFFTag.blackLevel, [100, 101, 102, 103])
        }
        let raw = b.appendIFD([
            b.long(TIFFTag.newSubFileType, [0]), b.long(TIFFTag.imageWidth, [10]), b.long(TIFFTag.imageLength, [8]),
            b.short(TIFFTag.bitsPerSample, [16]), b.short(TIFFTag.compression, [1]),
            b.short(TIFFTag.photometricInterpretation, [32803]), b.short(TIFFTag.samplesPerPixel, [1]),
            b.long(TIFFTag.stripOffsets, [UInt32(pixels)]), b.long(TIFFTag.stripByteCounts, [160]),
            b.short(TIFFTag.cfaRepeatPatternDim, [2, 2]), b.byte(TIFFTag.cfaPattern, [0, 1, 1, 2]),
            b.long(TIFFTag.activeArea, [1, 1, 7, 9]),                      // top, left, bottom, right
            b.rational(TIFFTag.defaultCropOrigin, [(1, 1), (2, 1)]), b.rational(TIFFTag.defaultCropSize, [(6, 1), (4, 1)]),
            b.short(TIFFTag.blackLevelRepeatDim, [2, 2]), black,
            b.long(TIFFTag.whiteLevel, [16383]), b.short(TIFFTag.linearizationTable, Array(0..<256).map { UInt16($0) }),
            b.byte(TIFFTag.opcodeList2, [0, 0, 0, 0, 9, 9], type: 7),
        ])
        let exif = b.appendIFD([
            b.rational(TIFFTag.exposureTime, [(1, 250)]), b.rational(TIFFTag.fNumber, [(28, 10)]),
            b.short(TIFFTag.isoSpeedRatings, [400]), b.ascii(TIFFTag.dateTimeOriginal, "2024:01:02 03:04:05"),
            b.ascii(TIFFTag.offsetTimeOriginal, "+02:00"), b.ascii(TIFFTag.subSecTimeOriginal, "42"),
            b.rational(TIFFTag.focalLength, [(50, 1)]), b.short(TIFFTag.focalLengthIn35mmFilm, [75]),
            b.srational(TIFFTag.exposureBiasValue, [(-1, 3)]), b.short(TIFFTag.flash, [16]),
            b.ascii(TIFFTag.lensModel, "50mm F2.8"), b.ascii(TIFFTag.bodySerialNumber, "SN123"),
        ])
        let gps = b.appendIFD([
            b.ascii(TIFFTag.GPS.gpsLatitudeRef, "S"), b.rational(TIFFTag.GPS.gpsLatitude, [(33, 1), (30, 1), (0, 1)]),
            b.ascii(TIFFTag.GPS.gpsLongitudeRef, "E"), b.rational(TIFFTag.GPS.gpsLongitude, [(151, 1), (15, 1), (36, 1)]),
            b.byte(TIFFTag.GPS.gpsAltitudeRef, [1]), b.rational(TIFFTag.GPS.gpsAltitude, [(25, 2)]),
            b.rational(TIFFTag.GPS.gpsTimeStamp, [(7, 1), (8, 1), (9, 1)]), b.ascii(TIFFTag.GPS.gpsDateStamp, "2024:01:02"),
        ])
        var illuminant = b.enc16(0) + b.enc32(3457) + b.enc32(10000) + b.enc32(3585) + b.enc32(10000)
        illuminant += []
        let ifd0 = b.appendIFD([
            b.long(TIFFTag.newSubFileType, [1]), b.long(TIFFTag.imageWidth, [2]), b.long(TIFFTag.imageLength, [1]),
            b.short(TIFFTag.compression, [7]), b.short(TIFFTag.photometricInterpretation, [6]),
            b.long(TIFFTag.stripOffsets, [UInt32(jpeg)]), b.long(TIFFTag.stripByteCounts, [4]),
            b.long(TIFFTag.subIFDs, [UInt32(raw)]), b.long(TIFFTag.exifIFD, [UInt32(exif)]), b.long(TIFFTag.gpsIFD, [UInt32(gps)]),
            b.byte(TIFFTag.dngVersion, [1, 6, 0, 0]), b.ascii(TIFFTag.uniqueCameraModel, "Test Cam"),
            b.ascii(TIFFTag.make, "Maker"), b.ascii(TIFFTag.model, "Model X"), b.short(TIFFTag.orientation, [8]),
            b.srational(TIFFTag.colorMatrix1, [(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1), (0, 1), (0, 1), (-1, 2)]),
            b.srational(TIFFTag.colorMatrix2, [(1, 1), (0, 1), (0, 1), (0, 1), (1, 1), (0, 1)]),   // 2 planes: warn
            b.short(TIFFTag.calibrationIlluminant1, [255]), b.byte(TIFFTag.illuminantData1, illuminant, type: 7),
            b.rational(TIFFTag.asShotNeutral, [(1, 2), (1, 1), (3, 4)]), b.srational(TIFFTag.baselineExposure, [(1, 4)]),
            b.long(TIFFTag.profileHueSatMapDims, [2, 1, 1]), b.float(TIFFTag.profileHueSatMapData1, [1, 2, 3, 4, 5, 6]),
            b.float(TIFFTag.profileToneCurve, [0, 0, 1, 1]), b.ascii(TIFFTag.profileName, "Adobe Standard"),
            b.byte(TIFFTag.xmp, Array("<x:xmpmeta/>".utf8)),
        ])
        b.setFirstIFD(ifd0)
        return b.bytes
    }

    @Test(arguments: [false, true])
    func readsHandBuiltDNG(_ bigEndian: Bool) throws {
        let md = try DNGMetadataReader.read(Self.buildDNG(bigEndian: bigEndian), path: "t.dng")
        #expect(md.fileFormat == "DNG" && md.dngVersion == [1, 6, 0, 0] && md.uniqueCameraModel == "Test Cam")
        #expect(md.sensorWidth == 10 && md.sensorHeight == 8)
        #expect(md.activeArea == PixelRect(x: 1, y: 1, width: 8, height: 6))
        #expect(md.defaultCrop == PixelRect(x: 1, y: 2, width: 6, height: 4))
        // RGGB on the sensor, seen from active-area origin (1, 1): BGGR.
        #expect(md.cfa == .bggr)
        #expect(md.blackLevelRepeatRows == 2 && md.blackLevelRepeatColumns == 2)
        #expect(md.blackLevel == [100, 101, 102, 103])
        #expect(md.whiteLevel == [16383])
        #expect(md.linearizationTableCount == 256)
        #expect(md.orientation == 8)
        #expect(md.asShotNeutral == [0.5, 1, 0.75])
        #expect(md.baselineExposure == 0.25)
        #expect(md.opcodeList2 == [0, 0, 0, 0, 9, 9])
        let p = try #require(md.profile)
        #expect(p.colorMatrix1 == Matrix3([1, 0, 0, 0, 1, 0, 0, 0, -0.5]))
        #expect(p.colorMatrix2 == nil)
        #expect(md.warnings.count == 1 && md.warnings[0].contains("ColorMatrix2"))
        #expect(p.calibrationIlluminant1 == 255)
        #expect(p.illuminantData1 == Chromaticity(x: 0.3457, y: 0.3585))
        #expect(p.hueSatMapDims == [2, 1, 1] && p.hueSatMapData1 == [1, 2, 3, 4, 5, 6])
        #expect(p.toneCurve == [0, 0, 1, 1] && p.name == "Adobe Standard")
        let x = md.exif
        #expect(x.make == "Maker" && x.model == "Model X" && x.lensModel == "50mm F2.8" && x.bodySerialNumber == "SN123")
        #expect(x.exposureTime == 1.0 / 250 && x.fNumber == 2.8 && x.isoSpeed == 400 && x.focalLength == 50)
        #expect(x.focalLengthIn35mm == 75 && x.exposureBias == -1.0 / 3 && x.flash == 16)
        #expect(x.dateTimeOriginal == "2024:01:02 03:04:05" && x.offsetTimeOriginal == "+02:00" && x.subSecTimeOriginal == "42")
        #expect(x.xmp == "<x:xmpmeta/>")
        let g = try #require(x.gps)
        #expect(g.latitude == -33.5 && abs((g.longitude ?? 0) - 151.26) < 1e-12 && g.altitude == -12.5)
        #expect(g.timeStamp == "07:08:09" && g.dateStamp == "2024:01:02")
        #expect(md.previews.count == 1)
        #expect(md.previews.first?.kind == "jpeg" && md.previews.first?.length == 4 && md.previews.first?.width == 2)
    }

    @Test(arguments: [UInt16(3), 4, 5])
    func blackLevelAcceptsShortLongRational(_ type: UInt16) throws {
        let md = try DNGMetadataReader.read(Self.buildDNG(bigEndian: false, blackType: type), path: "t.dng")
        #expect(md.blackLevel == [100, 101, 102, 103])
    }

    @Test(arguments: [false, true])
    func readsDCP(_ bigEndian: Bool) throws {
        var b = TIFFTestBuilder(bigEndian: bigEndian, magic: TIFFFile.dcpMagic)
        let ifd = b.appendIFD([
            b.ascii(TIFFTag.profileName, "Camera Neutral"), b.short(TIFFTag.calibrationIlluminant1, [17]),
            b.short(TIFFTag.calibrationIlluminant2, [21]),
            b.srational(TIFFTag.colorMatrix1, (0..<9).map { (Int32($0) - 4, 4) }),
            b.srational(TIFFTag.forwardMatrix2, (0..<9).map { (Int32($0), 10) }),
            b.long(TIFFTag.profileLookTableDims, [1, 1, 2]), b.float(TIFFTag.profileLookTableData, [0, 1, 1, 0, 1, 1]),
            b.long(TIFFTag.profileLookTableEncoding, [1]), b.srational(TIFFTag.baselineExposureOffset, [(-1, 2)]),
            b.long(TIFFTag.defaultBlackRender, [1]), b.long(TIFFTag.profileEmbedPolicy, [3]),
            b.ascii(TIFFTag.profileCopyright, "CC0"),
        ])
        b.setFirstIFD(ifd)
        #expect(Array(b.bytes.prefix(4)) == (bigEndian ? Array("MMCR".utf8) : Array("IIRC".utf8)))
        let p = try DNGMetadataReader.readDCP(b.bytes)
        #expect(p.name == "Camera Neutral" && p.calibrationIlluminant1 == 17 && p.calibrationIlluminant2 == 21)
        #expect(p.colorMatrix1 == Matrix3((0..<9).map { (Double($0) - 4) / 4 }))
        #expect(p.forwardMatrix2 == Matrix3((0..<9).map { Double($0) / 10 }))
        #expect(p.lookTableDims == [1, 1, 2] && p.lookTableData == [0, 1, 1, 0, 1, 1] && p.lookTableEncoding == 1)
        #expect(p.baselineExposureOffset == -0.5 && p.defaultBlackRender == 1 && p.embedPolicy == 3 && p.copyright == "CC0")
        // A DCP is not a DNG and vice versa.
        #expect(throws: TIFFError.self) { try DNGMetadataReader.read(b.bytes, path: "x.dcp") }
        #expect(throws: TIFFError.self) { try DNGMetadataReader.readDCP(Self.buildDNG(bigEndian: false)) }
    }

    @Test func missingRawIFDAndMissingOptionalTags() throws {
        var b = TIFFTestBuilder()
        let ifd = b.appendIFD([b.long(TIFFTag.imageWidth, [4]), b.long(TIFFTag.imageLength, [4]), b.short(TIFFTag.photometricInterpretation, [2])])
        b.setFirstIFD(ifd)
        #expect(throws: TIFFError.file(path: "p.tif", .noRawIFD)) { try DNGMetadataReader.read(b.bytes, path: "p.tif") }

        // A bare CFA image: everything optional nil, defaults from the spec.
        var c = TIFFTestBuilder()
        let px = c.append([UInt8](repeating: 0, count: 32))
        let raw = c.appendIFD([c.long(TIFFTag.imageWidth, [4]), c.long(TIFFTag.imageLength, [4]),
                               c.short(TIFFTag.bitsPerSample, [12]), c.short(TIFFTag.photometricInterpretation, [32803]),
                               c.byte(TIFFTag.cfaPattern, [1, 0, 2, 1]),
                               c.long(TIFFTag.stripOffsets, [UInt32(px)]), c.long(TIFFTag.stripByteCounts, [32])])
        c.setFirstIFD(raw)
        let md = try DNGMetadataReader.read(c.bytes, path: "bare.tif")
        #expect(md.fileFormat == "TIFF" && md.dngVersion == nil && md.cfa == .grbg)
        #expect(md.blackLevel == [0] && md.whiteLevel == [4095] && md.profile == nil && md.exif == ExifInfo())
        #expect(md.activeArea == nil && md.defaultCrop == nil && md.warnings.isEmpty)
    }
}
