import DarkroomCore

extension DNGMetadataReader {
    /// Largest hue, saturation or value division count accepted for HueSatMap/LookTable (Adobe's
    /// profiles use at most 90); a larger count is treated as malformed (and cannot make the
    /// table size overflow: 1024³ × 3 fits easily).
    static let maxTableDivisions: UInt32 = 1024

    /// White balance, calibration and baseline tags (IFD0; DNG 1.7 §4 and chapter 6).
    package static func readColour(ifd0: TIFFIFD, raw: TIFFIFD, into md: inout RawMetadata, _ tags: inout LenientTags) {
        md.asShotNeutral = tags.get { try ifd0.doubles(TIFFTag.asShotNeutral) }
        if let xy = tags.get({ try ifd0.doubles(TIFFTag.asShotWhiteXY) }) {
            if xy.count == 2 { md.asShotWhiteXY = Chromaticity(x: xy[0], y: xy[1]) } else { tags.warn("AsShotWhiteXY has \(xy.count) values") }
        }
        md.analogBalance = tags.get { try ifd0.doubles(TIFFTag.analogBalance) }
        md.cameraCalibration1 = matrix(ifd0, TIFFTag.cameraCalibration1, &tags)
        md.cameraCalibration2 = matrix(ifd0, TIFFTag.cameraCalibration2, &tags)
        md.cameraCalibration3 = matrix(ifd0, TIFFTag.cameraCalibration3, &tags)
        md.cameraCalibrationSignature = tags.get { try ifd0.string(TIFFTag.cameraCalibrationSignature) }
        md.baselineExposure = tags.get { try ifd0.double(TIFFTag.baselineExposure) }
        md.baselineNoise = tags.get { try ifd0.double(TIFFTag.baselineNoise) }
        md.baselineSharpness = tags.get { try ifd0.double(TIFFTag.baselineSharpness) }
        md.linearResponseLimit = tags.get { try ifd0.double(TIFFTag.linearResponseLimit) }
        if md.noiseProfile == nil { md.noiseProfile = tags.get { try ifd0.doubles(TIFFTag.noiseProfile) } }
        // The file's gain table map (DNG 1.7.1 "ProfileGainTableMap2", precedence): IFD 0's
        // (version 2 over version 1), else the raw IFD's. A camera profile's own map
        // (`CameraProfile.profileGainTableMap`) overrides it when that profile renders.
        md.profileGainTableMap = imageGainTableMap(ifd0, &tags)
            ?? (raw.offset != ifd0.offset ? imageGainTableMap(raw, &tags) : nil)
        if md.orientation == 1, raw.offset != ifd0.offset,
           let o = tags.get({ try ifd0.int(TIFFTag.orientation) }), (1...8).contains(o) {
            md.orientation = o   // DNG writers put Orientation in IFD0
        }
    }

    /// A 3×3 matrix tag (ColorMatrix, ForwardMatrix, CameraCalibration). Darkroom supports three
    /// colour planes only: any other count becomes a warning and nil.
    package static func matrix(_ ifd: TIFFIFD, _ tag: UInt16, _ tags: inout LenientTags) -> Matrix3? {
        guard let v = tags.get({ try ifd.doubles(tag) }) else { return nil }
        guard v.count == 9, v.allSatisfy({ $0.isFinite }) else {
            tags.warn("\(TIFFTag.name(tag)) has \(v.count) values; only 3 colour planes (9 values) are supported")
            return nil
        }
        return Matrix3(v)
    }

    /// The camera profile in `ifd` (IFD0 of a DNG, or of a DCP), nil when it has no profile tags.
    package static func readProfile(_ ifd: TIFFIFD, _ tags: inout LenientTags) -> CameraProfile? {
        var p = CameraProfile()
        p.name = tags.get { try ifd.string(TIFFTag.profileName) }
        p.calibrationIlluminant1 = tags.get { try ifd.int(TIFFTag.calibrationIlluminant1) }
        p.calibrationIlluminant2 = tags.get { try ifd.int(TIFFTag.calibrationIlluminant2) }
        p.calibrationIlluminant3 = tags.get { try ifd.int(TIFFTag.calibrationIlluminant3) }
        p.illuminantData1 = illuminantData(ifd, TIFFTag.illuminantData1, &tags)
        p.illuminantData2 = illuminantData(ifd, TIFFTag.illuminantData2, &tags)
        p.illuminantData3 = illuminantData(ifd, TIFFTag.illuminantData3, &tags)
        p.colorMatrix1 = matrix(ifd, TIFFTag.colorMatrix1, &tags)
        p.colorMatrix2 = matrix(ifd, TIFFTag.colorMatrix2, &tags)
        p.colorMatrix3 = matrix(ifd, TIFFTag.colorMatrix3, &tags)
        p.forwardMatrix1 = matrix(ifd, TIFFTag.forwardMatrix1, &tags)
        p.forwardMatrix2 = matrix(ifd, TIFFTag.forwardMatrix2, &tags)
        p.forwardMatrix3 = matrix(ifd, TIFFTag.forwardMatrix3, &tags)

        if let dims = tags.get({ try ifd.uints(TIFFTag.profileHueSatMapDims) }) {
            if dims.count == 3, dims.allSatisfy({ (1...Self.maxTableDivisions).contains($0) }) {
                let d = dims.map { Int($0) }
                p.hueSatMapDims = d
                let n = d[0] * d[1] * d[2] * 3
                p.hueSatMapData1 = table(ifd, TIFFTag.profileHueSatMapData1, count: n, &tags)
                p.hueSatMapData2 = table(ifd, TIFFTag.profileHueSatMapData2, count: n, &tags)
                p.hueSatMapData3 = table(ifd, TIFFTag.profileHueSatMapData3, count: n, &tags)
            } else {
                tags.warn("ProfileHueSatMapDims \(dims) invalid; HueSatMap ignored")
            }
        }
        p.hueSatMapEncoding = tags.get { try ifd.int(TIFFTag.profileHueSatMapEncoding) } ?? 0
        if let dims = tags.get({ try ifd.uints(TIFFTag.profileLookTableDims) }) {
            if dims.count == 3, dims.allSatisfy({ (1...Self.maxTableDivisions).contains($0) }) {
                let d = dims.map { Int($0) }
                p.lookTableDims = d
                p.lookTableData = table(ifd, TIFFTag.profileLookTableData, count: d[0] * d[1] * d[2] * 3, &tags)
            } else {
                tags.warn("ProfileLookTableDims \(dims) invalid; LookTable ignored")
            }
        }
        p.lookTableEncoding = tags.get { try ifd.int(TIFFTag.profileLookTableEncoding) } ?? 0
        if let curve = tags.get({ try ifd.doubles(TIFFTag.profileToneCurve) }) {
            if curve.count >= 4, curve.count % 2 == 0, curve.allSatisfy({ Float($0).isFinite }) { p.toneCurve = curve.map { Float($0) } }
            else { tags.warn("ProfileToneCurve has \(curve.count) values; ignored") }
        }
        p.baselineExposureOffset = tags.get { try ifd.double(TIFFTag.baselineExposureOffset) }
        p.defaultBlackRender = tags.get { try ifd.int(TIFFTag.defaultBlackRender) }
        p.embedPolicy = tags.get { try ifd.int(TIFFTag.profileEmbedPolicy) }
        p.copyright = tags.get { try ifd.string(TIFFTag.profileCopyright) }
        // Only version 2 belongs to a profile (IFD 0's is also the file's map: `readColour`).
        p.profileGainTableMap = gainTableMap(ifd, TIFFTag.profileGainTableMap2, &tags)
        return p == CameraProfile() ? nil : p
    }

    /// A FLOAT table of exactly `count` values (HueSatMap, LookTable).
    package static func table(_ ifd: TIFFIFD, _ tag: UInt16, count: Int, _ tags: inout LenientTags) -> [Float]? {
        guard let v = tags.get({ try ifd.doubles(tag) }) else { return nil }
        guard v.count == count else {
            tags.warn("\(TIFFTag.name(tag)) has \(v.count) values, dims need \(count); ignored")
            return nil
        }
        // Checked after the conversion: a finite Double such as 1e300 is inf as a Float.
        let floats = v.map { Float($0) }
        if let bad = floats.firstIndex(where: { !$0.isFinite }) {
            tags.warn("\(TIFFTag.name(tag)) value \(bad) (\(v[bad])) is not a finite Float; ignored")
            return nil
        }
        return floats
    }

    /// `IlluminantData1/2/3` (DNG 1.6): UNDEFINED bytes in the file's byte order, a SHORT kind
    /// (0 = x-y chromaticity, then two RATIONALs; 1 = spectrum) followed by its data. Only the
    /// chromaticity kind resolves to a white point; spectra add a warning.
    package static func illuminantData(_ ifd: TIFFIFD, _ tag: UInt16, _ tags: inout LenientTags) -> Chromaticity? {
        guard let e = ifd.entry(tag) else { return nil }
        let r = ifd.reader
        return tags.get { () throws(TIFFError) -> Chromaticity? in
            let (o, size) = try ifd.valueRange(e)
            guard size >= 2 else { throw .badEntry(tag: tag, reason: "\(size) bytes") }
            let kind = try r.u16(o)
            guard kind == 0 else { throw .badEntry(tag: tag, reason: "illuminant kind \(kind) (spectral) not resolved to x-y") }
            guard size >= 18 else { throw .badEntry(tag: tag, reason: "x-y data needs 18 bytes, has \(size)") }
            let xd = try r.u32(o + 6), yd = try r.u32(o + 14)
            guard xd != 0, yd != 0 else { throw .badEntry(tag: tag, reason: "zero denominator") }
            let xy = Chromaticity(x: Double(try r.u32(o + 2)) / Double(xd), y: Double(try r.u32(o + 10)) / Double(yd))
            // A white chromaticity lies inside the unit triangle (x, y > 0, x + y < 1).
            guard xy.x > 0, xy.y > 0, xy.x + xy.y < 1 else {
                throw .badEntry(tag: tag, reason: "white \(xy) is not a chromaticity (x, y > 0, x + y < 1)")
            }
            return xy
        }
    }

    /// `ExtraCameraProfiles`: offsets of embedded profiles, each a TIFF-like structure with the
    /// DCP magic whose offsets are relative to its own start. Read in place.
    package static func readExtraProfiles(_ ifd0: TIFFIFD, file: TIFFFile, _ tags: inout LenientTags) -> [CameraProfile] {
        guard let offsets = tags.get({ try ifd0.uints(TIFFTag.extraCameraProfiles) }) else { return [] }
        var out: [CameraProfile] = []
        for off in offsets.prefix(64) {
            let absolute = file.reader.base + Int(off)
            guard let sub = tags.get({ try TIFFFile(storage: file.reader.storage, base: absolute, acceptedMagic: [TIFFFile.dcpMagic, TIFFFile.tiffMagic]) }),
                  let first = sub.ifd0 else { continue }
            out.append(readProfile(first, &tags) ?? CameraProfile())
        }
        return out
    }
}
