import CTIFF
import DarkroomCore
import Foundation

/// Writes a `RawImage` as a DNG 1.4 with libtiff, uncompressed or lossless JPEG
/// (`DNGWriteOptions.compression`).
///
/// Layout (DNG 1.7 chapter 3, "the usual DNG layout"): with a preview, IFD0 is the 8-bit RGB
/// preview (NewSubFileType 1) and the raw image is its SubIFD; without, IFD0 is the raw image.
/// Camera and colour tags live in IFD0, raw-layout tags (CFA, black/white, DefaultCrop,
/// opcodes, NoiseProfile) in the raw IFD. Uncompressed samples are stored in 16-bit containers
/// whatever `bitsPerSample` says (WhiteLevel carries the range), so it reads back as 16; lossless
/// JPEG stores the precision of its streams (`DNGCompression.losslessJPEG`).
///
/// Precision: matrices and other SRATIONAL/RATIONAL values are rounded to multiples of 1/10000
/// (so |error| ≤ 5e-5) and stored with denominator 10000 (integers as n/1): libtiff first writes
/// its own float-derived fractions, which `normaliseRationals` then re-encodes in place.
///
/// The file is written atomically: to a temporary file in the same directory, renamed over
/// `path` when complete, removed on any error.
public enum DNGWriter {
    /// Returns the raw-image digests written into IFD0 (nil unless `options.rawDigests`).
    @discardableResult
    public static func write(_ image: RawImage, to path: String, options: DNGWriteOptions = .init()) throws(TIFFError)
        -> (legacy: [UInt8]?, new: [UInt8])? {
        do throws(TIFFError) {
            try validate(image, options)
            let temp = AtomicWriter.temporaryPath(beside: path)
            do throws(TIFFError) {
                let digests = try writeFile(image, to: temp, options: options)
                try normaliseRationals(path: temp)
                guard rename(temp, path) == 0 else {
                    throw TIFFError.writeFailed(reason: "rename: \(String(cString: strerror(errno)))")
                }
                return digests
            } catch {
                unlink(temp)
                throw error
            }
        } catch {
            throw error.inFile(path)
        }
    }

    static func validate(_ image: RawImage, _ options: DNGWriteOptions) throws(TIFFError) {
        let md = image.metadata
        guard image.width > 0, image.height > 0 else { throw .invalidInput(reason: "empty image \(image.width)x\(image.height)") }
        guard image.samplesPerPixel == 1 || image.samplesPerPixel == 3 else {
            throw .invalidInput(reason: "\(image.samplesPerPixel) samples per pixel (1 CFA or 3 LinearRaw)")
        }
        if image.samplesPerPixel == 1, md.cfa == nil { throw .invalidInput(reason: "CFA image without metadata.cfa") }
        if let t = options.tileSize, t <= 0 || t % 16 != 0 { throw .invalidInput(reason: "tile size \(t) is not a positive multiple of 16") }
        guard options.rowsPerStrip > 0 else { throw .invalidInput(reason: "rowsPerStrip \(options.rowsPerStrip)") }
        let blackCount = md.blackLevelRepeatRows * md.blackLevelRepeatColumns * image.samplesPerPixel
        guard md.blackLevel.count == blackCount || md.blackLevel.count == 1 else {
            throw .invalidInput(reason: "\(md.blackLevel.count) black levels for BlackLevelRepeatDim \(md.blackLevelRepeatRows)x\(md.blackLevelRepeatColumns)")
        }
        if case .jpegXL(let effort) = options.compression {
            guard options.tileSize != nil else { throw .invalidInput(reason: "JPEG XL raw data needs tiles (tileSize)") }
            guard (1...9).contains(effort) else { throw .invalidInput(reason: "JPEG XL effort \(effort) outside 1…9") }
        }
        if case .losslessJPEG(let components) = options.compression, image.samplesPerPixel == 1 {
            guard components == 1 || components == 2 else { throw .invalidInput(reason: "\(components) lossless JPEG components (1 or 2)") }
            let blockWidth = options.tileSize ?? image.width
            if components == 2, blockWidth % 2 != 0 {
                throw .invalidInput(reason: "2-component lossless JPEG needs an even strip width, not \(blockWidth)")
            }
        }
        try validateAdditions(image, options)
        if let p = options.preview, p.width <= 0 || p.height <= 0 || p.rgb.count != p.width * p.height * 3 {
            throw .invalidInput(reason: "preview \(p.width)x\(p.height) with \(p.rgb.count) bytes")
        }
    }

    /// Rounds to a multiple of 1/10000 (the stated precision of written rationals).
    static func q(_ v: Double) -> Double { (v * 10000).rounded() / 10000 }
    static func q(_ m: Matrix3) -> [Double] { m.m.map(q) }

    static func writeFile(_ image: RawImage, to path: String, options: DNGWriteOptions) throws(TIFFError)
        -> (legacy: [UInt8]?, new: [UInt8])? {
        // JPEG XL tiles are encoded first: their digest goes into IFD0, written before them.
        var jxlTiles: [[UInt8]]?
        if case .jpegXL(let effort) = options.compression, let tile = options.tileSize {
            jxlTiles = try encodeJXLTiles(image, tile: tile, effort: effort, threads: options.threads)
        }
        let digests: (legacy: [UInt8]?, new: [UInt8])?
        if !options.rawDigests {
            digests = nil
        } else if let jxlTiles {
            digests = (nil, RawDigest.compressedTilesDigest(jxlTiles))
        } else {
            digests = rawDigests(image, options)
        }
        let tiff = try LibTIFFWriter.open(path: path)
        if let preview = options.preview {
            try writePreviewStructure(preview, tiff)
            try writeCameraTags(image.metadata, options, tiff)
            try writeMainIFDAdditions(image.metadata, options, digests, tiff)
            try tiff.setSubIFDs(options.jpegPreview == nil ? 1 : 2)
            try tiff.checkpointDirectory()
            try writePreviewPixels(preview, tiff)
            try tiff.writeDirectory()
            try writeRawStructure(image, options, tiff)
            try writeRawTags(image, tiff)
        } else {
            try writeRawStructure(image, options, tiff)
            try writeCameraTags(image.metadata, options, tiff)
            try writeMainIFDAdditions(image.metadata, options, digests, tiff)
            try writeRawTags(image, tiff)
        }
        try writeRawIFDAdditions(options, tiff)
        // Directory before pixels (Adobe's layout). LibRaw 0.21 needs it for multi-tile files:
        // it range-checks the TileOffsets *array position* plus the data size against the file size.
        try tiff.checkpointDirectory()
        if let jxlTiles { try writeRawTiles(jxlTiles, tiff) } else { try writeRawPixels(image, options, tiff) }
        try tiff.writeDirectory()
        if let jpeg = options.jpegPreview, options.preview != nil { try writeJPEGPreview(jpeg, tiff) }
        try tiff.close()
        if let original = options.originalRawFile { try appendOriginalRawFile(original, to: path) }
        return digests
    }

    // MARK: - IFD0 tags

    static func writeCameraTags(_ md: RawMetadata, _ options: DNGWriteOptions, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        // DNG 1.6 tags (a third calibration, IlluminantData) raise DNGVersion to 1.6; illuminant
        // 255 in set 1 or 2 also DNGBackwardVersion (DNG spec, compatibility issue 17).
        let profile = md.profile
        let other1or2 = profile?.calibrationIlluminant1 == 255 || profile?.calibrationIlluminant2 == 255
        let dng16 = other1or2 || profile?.colorMatrix3 != nil || profile?.calibrationIlluminant3 != nil || md.cameraCalibration3 != nil
        // JPEG XL raw data is DNG 1.7, and ColumnInterleaveFactor 1.7.1: unreadable before it.
        var jxl = false
        if case .jpegXL = options.compression { jxl = true }
        try t.set(TIFFTag.dngVersion, .bytes(jxl ? [1, 7, 1, 0] : dng16 ? [1, 6, 0, 0] : [1, 4, 0, 0]))
        try t.set(TIFFTag.dngBackwardVersion, .bytes(jxl ? [1, 7, 1, 0] : other1or2 ? [1, 6, 0, 0] : [1, 1, 0, 0]))
        let model = md.uniqueCameraModel
            ?? [md.exif.make, md.exif.model].compactMap { $0 }.joined(separator: " ")
        try t.set(TIFFTag.uniqueCameraModel, .ascii(model.isEmpty ? "Unknown" : model))
        if let v = md.exif.make { try t.set(TIFFTag.make, .ascii(v)) }
        if let v = md.exif.model { try t.set(TIFFTag.model, .ascii(v)) }
        try t.set(TIFFTag.software, .ascii(options.software ?? md.exif.software ?? "Darkroom"))
        try t.set(TIFFTag.dateTime, .ascii(options.dateTime ?? currentDateTime()))
        if let v = md.exif.artist { try t.set(TIFFTag.artist, .ascii(v)) }
        if let v = md.exif.copyright { try t.set(TIFFTag.copyright, .ascii(v)) }
        if let v = md.exif.dateTimeOriginal { try t.set(TIFFTag.dateTimeOriginal, .ascii(v)) }
        try t.set(TIFFTag.orientation, .ints([UInt32((1...8).contains(md.orientation) ? md.orientation : 1)]))

        if let n = md.asShotNeutral {
            try t.set(TIFFTag.asShotNeutral, .reals(n.map(q)))
        } else if let xy = md.asShotWhiteXY {
            try t.set(TIFFTag.asShotWhiteXY, .reals([q(xy.x), q(xy.y)]))
        }
        if let v = md.analogBalance { try t.set(TIFFTag.analogBalance, .reals(v.map(q))) }
        if let m = md.cameraCalibration1 { try t.set(TIFFTag.cameraCalibration1, .reals(q(m))) }
        if let m = md.cameraCalibration2 { try t.set(TIFFTag.cameraCalibration2, .reals(q(m))) }
        if let m = md.cameraCalibration3 { try t.set(TIFFTag.cameraCalibration3, .reals(q(m))) }
        if let s = md.cameraCalibrationSignature { try t.set(TIFFTag.cameraCalibrationSignature, .ascii(s)) }
        if let v = md.baselineExposure { try t.set(TIFFTag.baselineExposure, .reals([q(v)])) }
        if let v = md.baselineNoise { try t.set(TIFFTag.baselineNoise, .reals([q(v)])) }
        if let v = md.baselineSharpness { try t.set(TIFFTag.baselineSharpness, .reals([q(v)])) }
        if let v = md.linearResponseLimit { try t.set(TIFFTag.linearResponseLimit, .reals([q(v)])) }

        if let p = md.profile {
            if let m = p.colorMatrix1 { try t.set(TIFFTag.colorMatrix1, .reals(q(m))) }
            if let m = p.colorMatrix2 { try t.set(TIFFTag.colorMatrix2, .reals(q(m))) }
            if let m = p.forwardMatrix1 { try t.set(TIFFTag.forwardMatrix1, .reals(q(m))) }
            if let m = p.forwardMatrix2 { try t.set(TIFFTag.forwardMatrix2, .reals(q(m))) }
            if let i = p.calibrationIlluminant1 { try t.set(TIFFTag.calibrationIlluminant1, .ints([UInt32(clamping: i)])) }
            if let i = p.calibrationIlluminant2 { try t.set(TIFFTag.calibrationIlluminant2, .ints([UInt32(clamping: i)])) }
            if let m = p.colorMatrix3 { try t.set(TIFFTag.colorMatrix3, .reals(q(m))) }
            if let m = p.forwardMatrix3 { try t.set(TIFFTag.forwardMatrix3, .reals(q(m))) }
            if let i = p.calibrationIlluminant3 { try t.set(TIFFTag.calibrationIlluminant3, .ints([UInt32(clamping: i)])) }
            let data = [(p.calibrationIlluminant1, p.illuminantData1, TIFFTag.illuminantData1),
                        (p.calibrationIlluminant2, p.illuminantData2, TIFFTag.illuminantData2),
                        (p.calibrationIlluminant3, p.illuminantData3, TIFFTag.illuminantData3)]
            for (code, xy, tag) in data where code == 255 {
                if let xy { try t.set(tag, .bytes(illuminantDataXY(xy))) }
            }
            if let dims = p.hueSatMapDims, dims.count == 3 {
                try t.set(TIFFTag.profileHueSatMapDims, .ints(dims.map { UInt32(clamping: $0) }))
                let tables = [(p.hueSatMapData1, TIFFTag.profileHueSatMapData1), (p.hueSatMapData2, TIFFTag.profileHueSatMapData2),
                              (p.hueSatMapData3, TIFFTag.profileHueSatMapData3)]
                for (table, tag) in tables { if let table { try t.set(tag, .reals(table.map(Double.init))) } }
                if p.hueSatMapEncoding != 0 { try t.set(TIFFTag.profileHueSatMapEncoding, .ints([UInt32(clamping: p.hueSatMapEncoding)])) }
            }
            if let n = p.name { try t.set(TIFFTag.profileName, .ascii(n)) }
            if let v = p.baselineExposureOffset { try t.set(TIFFTag.baselineExposureOffset, .reals([q(v)])) }
        }
    }

    /// `IlluminantData` of the x-y kind (DNG 1.6): SHORT 0, then x and y as RATIONALs with
    /// denominator 1,000,000, in the file's byte order (libtiff's "w" mode writes the host's).
    static func illuminantDataXY(_ xy: Chromaticity) -> [UInt8] {
        func bytes<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v) { Array($0) } }
        func micro(_ v: Double) -> UInt32 { UInt32(clamping: Int64((min(max(v, 0), 1) * 1_000_000).rounded())) }
        return bytes(UInt16(0)) + bytes(micro(xy.x)) + bytes(UInt32(1_000_000)) + bytes(micro(xy.y)) + bytes(UInt32(1_000_000))
    }

    static func currentDateTime() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900):\(two(parts.tm_mon + 1)):\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    // MARK: - Preview IFD

    static func writePreviewStructure(_ p: DNGPreview, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        try writePreviewHeader(width: p.width, height: p.height, compression: 1, photometric: 2, t)
    }

    /// The tags of a reduced-resolution 8-bit RGB preview IFD stored as one strip:
    /// NewSubFileType 1, size, 3 × 8 bits, chunky, `compression` (1 none, 7 JPEG) and
    /// `photometric` (2 RGB, 6 YCbCr).
    static func writePreviewHeader(width: Int, height: Int, compression: UInt32, photometric: UInt32,
                                   _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        try t.set(TIFFTag.newSubFileType, .ints([1]))
        try t.set(TIFFTag.imageWidth, .ints([UInt32(width)]))
        try t.set(TIFFTag.imageLength, .ints([UInt32(height)]))
        try t.set(TIFFTag.samplesPerPixel, .ints([3]))
        try t.set(TIFFTag.bitsPerSample, .ints([8]))
        try t.set(TIFFTag.compression, .ints([compression]))
        try t.set(TIFFTag.photometricInterpretation, .ints([photometric]))
        try t.set(TIFFTag.planarConfiguration, .ints([1]))
        try t.set(TIFFTag.rowsPerStrip, .ints([UInt32(height)]))
    }

    static func writePreviewPixels(_ p: DNGPreview, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        let failure: TIFFError? = p.rgb.withUnsafeBytes { buf in
            do throws(TIFFError) { try t.writeStrip(0, buf); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    // MARK: - Raw IFD

    static func writeRawStructure(_ image: RawImage, _ options: DNGWriteOptions, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        try t.set(TIFFTag.newSubFileType, .ints([0]))
        try t.set(TIFFTag.imageWidth, .ints([UInt32(image.width)]))
        try t.set(TIFFTag.imageLength, .ints([UInt32(image.height)]))
        try t.set(TIFFTag.samplesPerPixel, .ints([UInt32(image.samplesPerPixel)]))
        switch options.compression {
        case .uncompressed:
            try t.set(TIFFTag.bitsPerSample, .ints([16]))
            try t.set(TIFFTag.compression, .ints([1]))
        case .losslessJPEG:
            try t.set(TIFFTag.bitsPerSample, .ints([UInt32(losslessJPEGPrecision(image))]))
            try t.set(TIFFTag.compression, .ints([7]))
        case .jpegXL(let effort):
            try t.set(TIFFTag.bitsPerSample, .ints([16]))
            try t.set(TIFFTag.compression, .ints([UInt32(JXLDNGDecoder.compression)]))
            let fields = jxlFieldFactor(image)
            if fields > 1 {
                try t.set(TIFFTag.rowInterleaveFactor, .ints([UInt32(fields)]))
                try t.set(TIFFTag.columnInterleaveFactor, .ints([UInt32(fields)]))
            }
            try t.set(TIFFTag.jxlDistance, .reals([0]))
            try t.set(TIFFTag.jxlEffort, .ints([UInt32(effort)]))
        }
        try t.set(TIFFTag.photometricInterpretation,
                  .ints([image.samplesPerPixel == 1 ? DNGMetadataReader.photometricCFA : DNGMetadataReader.photometricLinearRaw]))
        try t.set(TIFFTag.planarConfiguration, .ints([1]))
        if let tile = options.tileSize {
            try t.set(TIFFTag.tileWidth, .ints([UInt32(tile)]))
            try t.set(TIFFTag.tileLength, .ints([UInt32(tile)]))
        } else {
            try t.set(TIFFTag.rowsPerStrip, .ints([UInt32(min(options.rowsPerStrip, image.height))]))
        }
    }

    static func writeRawTags(_ image: RawImage, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        let md = image.metadata
        if image.samplesPerPixel == 1, let cfa = md.cfa {
            try t.set(TIFFTag.cfaRepeatPatternDim, .ints([2, 2]))
            try t.set(TIFFTag.cfaPattern, .bytes(cfa.colors.map { $0.rawValue }))
            try t.set(TIFFTag.cfaPlaneColor, .bytes([0, 1, 2]))
            try t.set(TIFFTag.cfaLayout, .ints([1]))
        }
        let spp = image.samplesPerPixel
        if md.blackLevel.count == 1 {
            try t.set(TIFFTag.blackLevelRepeatDim, .ints([1, 1]))
            try t.set(TIFFTag.blackLevel, .reals(Array(repeating: q(md.blackLevel[0]), count: spp)))
        } else {
            try t.set(TIFFTag.blackLevelRepeatDim, .ints([UInt32(md.blackLevelRepeatRows), UInt32(md.blackLevelRepeatColumns)]))
            try t.set(TIFFTag.blackLevel, .reals(md.blackLevel.map(q)))
        }
        if let v = md.blackLevelDeltaH, v.count == image.width { try t.set(TIFFTag.blackLevelDeltaH, .reals(v.map(q))) }
        if let v = md.blackLevelDeltaV, v.count == image.height { try t.set(TIFFTag.blackLevelDeltaV, .reals(v.map(q))) }
        let white = md.whiteLevel.count == spp ? md.whiteLevel : Array(repeating: md.whiteLevel.first ?? 65535, count: spp)
        try t.set(TIFFTag.whiteLevel, .ints(white.map { UInt32(clamping: Int64($0.rounded())) }))
        if let c = md.defaultCrop {
            try t.set(TIFFTag.defaultCropOrigin, .reals([Double(c.x), Double(c.y)]))
            try t.set(TIFFTag.defaultCropSize, .reals([Double(c.width), Double(c.height)]))
        }
        if let b = md.opcodeList1, !b.isEmpty { try t.set(TIFFTag.opcodeList1, .bytes(b)) }
        if let b = md.opcodeList2, !b.isEmpty { try t.set(TIFFTag.opcodeList2, .bytes(b)) }
        if let b = md.opcodeList3, !b.isEmpty { try t.set(TIFFTag.opcodeList3, .bytes(b)) }
        if let v = md.noiseProfile, !v.isEmpty { try t.set(TIFFTag.noiseProfile, .reals(v)) }
    }

    /// P of the lossless JPEG streams: the metadata's bits (2…16), or the bits of the largest sample if more.
    static func losslessJPEGPrecision(_ image: RawImage) -> Int {
        let largest = image.pixels.max() ?? 0
        return max(min(max(image.metadata.bitsPerSample, 2), 16), UInt16.bitWidth - largest.leadingZeroBitCount)
    }

    /// One lossless JPEG stream per strip or tile; edge tiles are full size, padded with zeros.
    static func writeLosslessJPEGPixels(_ image: RawImage, _ options: DNGWriteOptions, components: Int,
                                        _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        let spp = image.samplesPerPixel, rowSamples = image.width * spp
        let nc = spp == 1 ? components : spp
        let precision = losslessJPEGPrecision(image)
        @Sendable func encode(_ samples: UnsafeBufferPointer<UInt16>, blockWidth: Int, rows: Int) -> [UInt8] {
            LosslessJPEGEncoder(columns: blockWidth * spp / nc, lines: rows, components: nc, precision: precision).encode(samples)
        }
        if let tile = options.tileSize {
            // Every tile's stream first, concurrently (`options.threads`), then written in order.
            try writeRawTiles(encodeTilesConcurrently(image, size: tile, threads: options.threads) { buffer in
                encode(buffer, blockWidth: tile, rows: tile)
            }, t)
        } else {
            let rows = min(options.rowsPerStrip, image.height)
            var strip = 0, y = 0
            while y < image.height {
                let n = min(rows, image.height - y)
                let stream = image.pixels.withUnsafeBufferPointer {
                    encode(UnsafeBufferPointer(rebasing: $0[(y * rowSamples)..<((y + n) * rowSamples)]), blockWidth: image.width, rows: n)
                }
                let failure: TIFFError? = stream.withUnsafeBytes { b in
                    do throws(TIFFError) { try t.writeRawStrip(strip, b); return nil } catch { return error }
                }
                if let failure { throw failure }
                strip += 1; y += n
            }
        }
    }

    /// Calls `body` with each tile's index (row-major) and samples: tiles are full `size × size`,
    /// edge tiles padded with zeros (TIFF 6.0 section 15).
    static func forEachTile(of image: RawImage, size tile: Int,
                            _ body: (Int, UnsafeBufferPointer<UInt16>) throws(TIFFError) -> Void) throws(TIFFError) {
        let spp = image.samplesPerPixel, rowSamples = image.width * spp
        var buffer = [UInt16](repeating: 0, count: tile * tile * spp)
        let across = (image.width + tile - 1) / tile, down = (image.height + tile - 1) / tile
        let tileRowSamples = tile * spp
        for ty in 0..<down {
            for tx in 0..<across {
                for i in buffer.indices { buffer[i] = 0 }
                let w = min(tile, image.width - tx * tile), h = min(tile, image.height - ty * tile)
                for y in 0..<h {
                    let src = (ty * tile + y) * rowSamples + tx * tileRowSamples
                    for x in 0..<(w * spp) { buffer[y * tileRowSamples + x] = image.pixels[src + x] }
                }
                let failure: TIFFError? = buffer.withUnsafeBufferPointer { b in
                    do throws(TIFFError) { try body(ty * across + tx, b); return nil } catch { return error }
                }
                if let failure { throw failure }
            }
        }
    }

    static func writeRawPixels(_ image: RawImage, _ options: DNGWriteOptions, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        if case .losslessJPEG(let components) = options.compression {
            return try writeLosslessJPEGPixels(image, options, components: components, t)
        }
        let rowSamples = image.width * image.samplesPerPixel
        let failure: TIFFError? = image.pixels.withUnsafeBytes { all in
          do throws(TIFFError) {
            if let tile = options.tileSize {
                try forEachTile(of: image, size: tile) { (index, buffer) throws(TIFFError) in
                    try t.writeTile(index, UnsafeRawBufferPointer(buffer))
                }
            } else {
                let rows = min(options.rowsPerStrip, image.height)
                var strip = 0, y = 0
                while y < image.height {
                    let n = min(rows, image.height - y)
                    let start = y * rowSamples * 2
                    try t.writeStrip(strip, UnsafeRawBufferPointer(rebasing: all[start..<(start + n * rowSamples * 2)]))
                    strip += 1; y += n
                }
            }
            return nil
          } catch { return error }
        }
        if let failure { throw failure }
    }
}
