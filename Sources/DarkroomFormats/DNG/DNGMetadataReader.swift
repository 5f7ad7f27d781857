import DarkroomCore

/// Reads everything but pixels from a DNG (or TIFF/EP-style raw TIFF) into `RawMetadata`,
/// following the tag placement of the DNG specification 1.7, chapter 4: camera and colour tags
/// in IFD0, raw-layout tags (CFA, black/white, ActiveArea, DefaultCrop, opcodes) in the raw IFD.
///
/// Structure errors and malformed *required* tags throw; a malformed *optional* tag is left nil
/// and described in `RawMetadata.warnings`. Pixel data is never copied or decoded, but the raw
/// IFD's strips or tiles must lie inside the file (a truncated file throws).
public enum DNGMetadataReader {
    /// PhotometricInterpretation values of raw IFDs (DNG 1.7 §4 "PhotometricInterpretation").
    public static let photometricCFA: UInt32 = 32803
    public static let photometricLinearRaw: UInt32 = 34892

    /// Reads the file at `path`, memory-mapped: only the pages holding metadata are touched.
    public static func read(contentsOf path: String) throws(TIFFError) -> RawMetadata {
        let storage = try ByteStorage(mapping: path)
        do throws(TIFFError) {
            let metadata = try read(TIFFFile(storage: storage))
            if storage.truncatedWhileMapped { throw TIFFError.shrankWhileReading }
            return metadata
        } catch {
            throw error.inFile(path)
        }
    }

    /// Reads metadata from the bytes of a DNG; errors name `path`.
    public static func read(_ bytes: [UInt8], path: String) throws(TIFFError) -> RawMetadata {
        do {
            let file = try TIFFFile(bytes: bytes)
            return try read(file)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Reads an Adobe camera profile (.dcp): a TIFF structure with magic 0x4352 ("IIRC"/"MMCR")
    /// whose IFD0 holds the profile tags.
    public static func readDCP(_ bytes: [UInt8]) throws(TIFFError) -> CameraProfile {
        let file = try TIFFFile(bytes: bytes, acceptedMagic: [TIFFFile.dcpMagic])
        guard let ifd0 = file.ifd0 else { throw .noRawIFD }
        var tags = LenientTags()
        return readProfile(ifd0, &tags) ?? CameraProfile()
    }

    // MARK: - Structure

    /// The raw IFD: NewSubFileType 0 with CFA or LinearRaw photometric, the largest if several.
    package static func findRawIFD(_ file: TIFFFile) throws(TIFFError) -> TIFFIFD {
        var best: TIFFIFD? = nil
        var bestArea = -1
        for ifd in file.allImageIFDs {
            guard (try ifd.uint(TIFFTag.newSubFileType) ?? 0) == 0,
                  let photometric = try ifd.uint(TIFFTag.photometricInterpretation),
                  photometric == photometricCFA || photometric == photometricLinearRaw
            else { continue }
            // Sizes come from the file: a product that overflows ranks as the largest; the
            // plausibility and allocation checks refuse such an image later, with its size.
            let w = max(0, try ifd.int(TIFFTag.imageWidth) ?? 0), h = max(0, try ifd.int(TIFFTag.imageLength) ?? 0)
            let (product, overflow) = w.multipliedReportingOverflow(by: h)
            let area = overflow ? Int.max : product
            if area > bestArea { best = ifd; bestArea = area }
        }
        guard let best else { throw .noRawIFD }
        return best
    }

    package static func read(_ file: TIFFFile) throws(TIFFError) -> RawMetadata {
        try read(file, raw: try findRawIFD(file))
    }

    /// Metadata of `file` whose raw image is `raw` (the IFD `findRawIFD` chose).
    package static func read(_ file: TIFFFile, raw: TIFFIFD) throws(TIFFError) -> RawMetadata {
        guard let ifd0 = file.ifd0 else { throw .noRawIFD }
        var tags = LenientTags()
        tags.warnings = file.warnings
        var md = RawMetadata()

        // Required image layout (throws when malformed).
        guard let width = try raw.int(TIFFTag.imageWidth), width > 0 else {
            throw .missingTag(tag: TIFFTag.imageWidth, ifd: raw.name)
        }
        guard let height = try raw.int(TIFFTag.imageLength), height > 0 else {
            throw .missingTag(tag: TIFFTag.imageLength, ifd: raw.name)
        }
        let spp = try raw.int(TIFFTag.samplesPerPixel) ?? 1
        guard (1...4).contains(spp) else { throw .badEntry(tag: TIFFTag.samplesPerPixel, reason: "\(spp) samples per pixel") }
        let bits = try raw.int(TIFFTag.bitsPerSample) ?? 1
        guard (1...32).contains(bits) else { throw .badEntry(tag: TIFFTag.bitsPerSample, reason: "\(bits) bits per sample") }
        try checkImageData(raw, file: file, height: height)

        md.dngVersion = tags.get { try ifd0.uints(TIFFTag.dngVersion)?.map { Int($0) } }
        md.fileFormat = md.dngVersion == nil ? "TIFF" : "DNG"
        md.uniqueCameraModel = tags.get { try ifd0.string(TIFFTag.uniqueCameraModel) }
        md.sensorWidth = width
        md.sensorHeight = height
        md.samplesPerPixel = spp
        md.bitsPerSample = bits
        md.compression = tags.get { try raw.int(TIFFTag.compression) } ?? 1

        readLayout(raw, width: width, height: height, into: &md, &tags)
        readLevels(raw, into: &md, &tags)
        readColour(ifd0: ifd0, raw: raw, into: &md, &tags)
        md.profile = readProfile(ifd0, &tags)
        md.extraProfiles = readExtraProfiles(ifd0, file: file, &tags)
        md.exif = readExif(ifd0: ifd0, &tags)
        md.previews = readPreviews(file, &tags)
        md.warnings = tags.warnings
        return md
    }

    /// Throws unless the raw IFD's strips or tiles are all inside the file.
    package static func checkImageData(_ raw: TIFFIFD, file: TIFFFile, height: Int) throws(TIFFError) {
        let offsets: [UInt32], counts: [UInt32]
        if let o = try raw.uints(TIFFTag.tileOffsets) {
            guard let c = try raw.uints(TIFFTag.tileByteCounts) else {
                throw .missingTag(tag: TIFFTag.tileByteCounts, ifd: raw.name)
            }
            offsets = o; counts = c
        } else if let o = try raw.uints(TIFFTag.stripOffsets) {
            guard let c = try raw.uints(TIFFTag.stripByteCounts) else {
                throw .missingTag(tag: TIFFTag.stripByteCounts, ifd: raw.name)
            }
            offsets = o; counts = c
        } else {
            throw .missingTag(tag: TIFFTag.stripOffsets, ifd: raw.name)
        }
        guard offsets.count == counts.count, !offsets.isEmpty else {
            throw .badEntry(tag: TIFFTag.stripByteCounts, reason: "\(offsets.count) offsets but \(counts.count) byte counts")
        }
        for (o, c) in zip(offsets, counts) { try file.reader.check(Int(o), Int(c)) }
    }
}
