import DarkroomCore
import Foundation

/// DNG tags `TIFFTag` does not name yet.
extension TIFFTag {
    /// OriginalRawFileData (DNG 1.7 §6): the original file in the block format of `OriginalRawData`.
    public static let originalRawFileData: UInt16 = 50828
    /// OriginalRawFileDigest: MD5 of the OriginalRawFileData tag's bytes.
    public static let originalRawFileDigest: UInt16 = 50973
}

/// The original file to embed: its name (OriginalRawFileName) and where to read it; the writer
/// streams it into OriginalRawFileData (`OriginalRawData` block format) with its MD5 as
/// OriginalRawFileDigest.
public struct DNGOriginalRawFile: Sendable, Equatable {
    public var name: String
    public var path: String
    public init(name: String, path: String) { self.name = name; self.path = path }
}

/// The converter's additions to the writer: ActiveArea over the whole stored image, the raw
/// digests, capture tags, a JPEG preview SubIFD, an embedded original, tiles encoded concurrently.
extension DNGWriter {
    static func validateAdditions(_ image: RawImage, _ options: DNGWriteOptions) throws(TIFFError) {
        if let a = options.activeArea {
            guard !a.isEmpty, a.x >= 0, a.y >= 0, a.maxX <= image.width, a.maxY <= image.height else {
                throw .invalidInput(reason: "ActiveArea \(a) outside the \(image.width)x\(image.height) stored image")
            }
        }
        if options.jpegPreview != nil, options.preview == nil {
            throw .invalidInput(reason: "a JPEG preview needs the IFD0 thumbnail (options.preview)")
        }
        if let p = options.jpegPreview {
            guard p.width > 0, p.height > 0, p.width <= 65535, p.height <= 65535, p.jpeg.count >= 4,
                  p.subsampling == [1, 1] || p.subsampling == [2, 1] || p.subsampling == [2, 2] else {
                throw .invalidInput(reason: "JPEG preview \(p.width)x\(p.height), \(p.jpeg.count) bytes, subsampling \(p.subsampling)")
            }
        }
        guard image.pixels.count == image.width * image.height * image.samplesPerPixel else {
            throw .invalidInput(reason: "\(image.pixels.count) samples for \(image.width)x\(image.height)x\(image.samplesPerPixel)")
        }
    }

    /// (RawImageDigest, NewRawImageDigest) of the samples as stored.
    /// The SDK hashes the new digest as bytes when its raw image is 8-bit: 8-bit lossless-JPEG
    /// streams, or a LinearizationTable of at most 256 entries.
    /// The digests written for samples stored uncompressed or as lossless JPEG (for JPEG XL the
    /// writer uses `RawDigest.compressedTilesDigest` of its tiles instead, with no RawImageDigest).
    static func rawDigests(_ image: RawImage, _ options: DNGWriteOptions) -> (legacy: [UInt8]?, new: [UInt8]) {
        var eightBit = (options.linearizationTable?.count ?? Int.max) <= 256
        if case .losslessJPEG = options.compression, losslessJPEGPrecision(image) <= 8 { eightBit = true }
        return (RawDigest.rawImageDigest(image.pixels),
                RawDigest.newRawImageDigest(image.pixels, width: image.width, height: image.height,
                                            samplesPerPixel: image.samplesPerPixel, eightBit: eightBit, threads: options.threads))
    }

    /// IFD0 tags of the converter: capture facts, digests, the embedded original.
    static func writeMainIFDAdditions(_ md: RawMetadata, _ options: DNGWriteOptions, _ digests: (legacy: [UInt8]?, new: [UInt8])?,
                                      _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        if options.captureTags {
            let e = md.exif
            if let v = e.exposureTime, v > 0, v.isFinite { try t.set(TIFFTag.exposureTime, .reals([v])) }
            if let v = e.fNumber, v > 0, v.isFinite { try t.set(TIFFTag.fNumber, .reals([q(v)])) }
            if let v = e.isoSpeed, v > 0 { try t.set(TIFFTag.isoSpeedRatings, .ints([UInt32(min(v, 65535))])) }
            if let v = e.focalLength, v > 0, v.isFinite { try t.set(TIFFTag.focalLength, .reals([q(v)])) }
            if let v = e.focalLengthIn35mm, v > 0 { try t.set(TIFFTag.focalLengthIn35mmFilm, .ints([UInt32(min(v, 65535))])) }
            if let v = e.lensMake { try t.set(TIFFTag.lensMake, .ascii(v)) }
            if let v = e.lensModel { try t.set(TIFFTag.lensModel, .ascii(v)) }
        }
        if let digests {
            if let legacy = digests.legacy { try t.set(TIFFTag.rawImageDigest, .bytes(legacy)) }
            try t.set(TIFFTag.newRawImageDigest, .bytes(digests.new))
        }
        if let original = options.originalRawFile {
            // Placeholders: `appendOriginalRawFile` streams the data to the end of the file and
            // points these entries at it.
            try t.set(TIFFTag.originalRawFileName, .ascii(original.name))
            try t.set(TIFFTag.originalRawFileData, .bytes([0]))
            try t.set(TIFFTag.originalRawFileDigest, .bytes([UInt8](repeating: 0, count: 16)))
        }
    }

    /// Streams `original` to the end of the finished DNG at `path` (word-aligned) and patches
    /// IFD0's OriginalRawFileData entry (count, offset) and OriginalRawFileDigest value in place.
    static func appendOriginalRawFile(_ original: DNGOriginalRawFile, to path: String) throws(TIFFError) {
        let file = try TIFFFile(storage: ByteStorage(mapping: path))
        guard let ifd0 = file.ifd0, let data = ifd0.entry(TIFFTag.originalRawFileData), data.count == 1,
              let digest = ifd0.entry(TIFFTag.originalRawFileDigest), digest.count == 16 else {
            throw .writeFailed(reason: "OriginalRawFileData placeholders missing from IFD0")
        }
        let big = file.bigEndian
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .writeFailed(reason: "reopen for the original: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var end = Int(lseek(fd, 0, SEEK_END))
        if end % 2 == 1 { try pwriteAll(fd, [0], at: end); end += 1 }
        let start = end
        var md5 = RawDigest.MD5Stream()
        var hashed = 0
        var pending: [(Int, [UInt8])] = []   // the index, rewritten once known: hashed at the end
        let length: Int
        do throws(OriginalRawDataError) {
            length = try OriginalRawData.encode(path: original.path) { (bytes: [UInt8], at: Int) throws(OriginalRawDataError) in
                do throws(TIFFError) { try pwriteAll(fd, bytes, at: start + at) } catch {
                    throw OriginalRawDataError.write(path: path, reason: error.description)
                }
                if at == hashed { md5.update(bytes); hashed += bytes.count } else { pending.append((at, bytes)) }
            }
        } catch {
            throw .writeFailed(reason: error.description)
        }
        // The MD5 is of the final tag bytes: when an index was rewritten, hash the file's bytes again.
        let sum: [UInt8]
        if pending.isEmpty { sum = md5.finalize() } else { sum = try md5OfFileRange(fd, start, length) }
        func u32(_ v: Int) -> [UInt8] {
            let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
            return big ? le.reversed() : le
        }
        // Entry layout: tag(2) type(2) count(4) value/offset(4); inline values start at entry + 8.
        try pwriteAll(fd, u32(length) + u32(start), at: data.valueOffset - 4)
        try pwriteAll(fd, sum, at: digest.valueOffset)

    }

    private static func pwriteAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int) throws(TIFFError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            guard n > 0 else { throw .writeFailed(reason: "pwrite: \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    private static func md5OfFileRange(_ fd: Int32, _ start: Int, _ length: Int) throws(TIFFError) -> [UInt8] {
        var md5 = RawDigest.MD5Stream()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done = 0
        while done < length {
            let want = min(buffer.count, length - done)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(start + done)) }
            guard n > 0 else { throw .writeFailed(reason: "pread: \(String(cString: strerror(errno)))") }
            md5.update(Array(buffer[0..<n]))
            done += n
        }
        return md5.finalize()
    }

    /// Raw IFD tags of the converter: LinearizationTable, ActiveArea (top, left, bottom, right).
    static func writeRawIFDAdditions(_ options: DNGWriteOptions, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        if let table = options.linearizationTable, !table.isEmpty {
            try t.set(TIFFTag.linearizationTable, .ints(table.map { UInt32($0) }))
        }
        if let a = options.activeArea {
            try t.set(TIFFTag.activeArea, .ints([UInt32(a.y), UInt32(a.x), UInt32(a.maxY), UInt32(a.maxX)]))
        }
    }

    /// The JPEG preview SubIFD: one strip holding the whole JPEG stream.
    static func writeJPEGPreview(_ p: DNGJPEGPreview, _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        try writePreviewHeader(width: p.width, height: p.height, compression: 7, photometric: 6, t)
        try t.setYCbCrSubsampling(horizontal: p.subsampling[0], vertical: p.subsampling[1])
        let failure: TIFFError? = p.jpeg.withUnsafeBytes { b in
            do throws(TIFFError) { try t.writeRawStrip(0, b); return nil } catch { return error }
        }
        if let failure { throw failure }
        try t.writeDirectory()
    }

    /// What fills the part of an edge tile beyond the image.
    enum TilePadding {
        /// Zeros (the lossless-JPEG tiles).
        case zeros
        /// The tile's last column and row repeated (the JPEG XL tiles: smoother, smaller).
        case edge
    }

    /// `encode` applied to every full-size tile (row-major; edge tiles padded as `padding` says), spread
    /// over `threads` workers (0 = one per core). The streams do not depend on the thread count.
    static func encodeTilesConcurrently(_ image: RawImage, size tile: Int, threads: Int, padding: TilePadding = .zeros,
                                        _ encode: @escaping @Sendable (UnsafeBufferPointer<UInt16>) -> [UInt8]) -> [[UInt8]] {
        let spp = image.samplesPerPixel, rowSamples = image.width * spp
        let across = (image.width + tile - 1) / tile, down = (image.height + tile - 1) / tile
        let count = across * down
        let workers = max(1, min(count, threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount))
        let results = TileStreams(count: count)
        image.pixels.withUnsafeBufferPointer { pixels in
            let source = SendablePixels(base: pixels)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let tileRowSamples = tile * spp
                var buffer = [UInt16](repeating: 0, count: tile * tile * spp)
                var index = worker
                while index < count {
                    let ty = index / across, tx = index % across
                    let w = min(tile, image.width - tx * tile), h = min(tile, image.height - ty * tile)
                    if padding == .zeros && (w < tile || h < tile) { for i in buffer.indices { buffer[i] = 0 } }
                    buffer.withUnsafeMutableBufferPointer { dst in
                        let d = dst.baseAddress!
                        for y in 0..<h {
                            let src = (ty * tile + y) * rowSamples + tx * tileRowSamples
                            let row = d + y * tileRowSamples
                            row.update(from: source.base.baseAddress! + src, count: w * spp)
                            if padding == .edge {
                                for x in w..<tile { for c in 0..<spp { row[x * spp + c] = row[(w - 1) * spp + c] } }
                            }
                        }
                        if padding == .edge {
                            for y in h..<tile { (d + y * tileRowSamples).update(from: d + (h - 1) * tileRowSamples, count: tileRowSamples) }
                        }
                    }
                    let stream = buffer.withUnsafeBufferPointer { encode($0) }
                    results.set(index, stream)
                    index += workers
                }
            }
        }
        return results.streams
    }

    struct SendablePixels: @unchecked Sendable { let base: UnsafeBufferPointer<UInt16> }

    /// One slot per tile, each written by exactly one worker.
    final class TileStreams: @unchecked Sendable {
        var streams: [[UInt8]]
        let lock = NSLock()
        init(count: Int) { streams = Array(repeating: [], count: count) }
        func set(_ i: Int, _ s: [UInt8]) { lock.lock(); streams[i] = s; lock.unlock() }
    }
}
