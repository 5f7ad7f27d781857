import CZlib
import DarkroomCore
import Dispatch
import Foundation

/// Decodes floating-point DNG raw data (SampleFormat 3; DNG 1.4 "Floating point image data") and
/// maps it into `RawImage`'s 16-bit samples.
///
/// Scope (`unsupportedReason`): 16-bit (IEEE half), 24-bit (DNG fp24: sign, 7-bit exponent biased
/// by 63, 16-bit mantissa) or 32-bit (IEEE single) samples, 1 or 3 per pixel, PlanarConfiguration 1,
/// strips or tiles, uncompressed (Compression 1, samples in the file's byte order) or Deflate
/// (Compression 8 or 32946, zlib), Deflate optionally with the floating-point predictor — 3
/// (TIFF Technical Note 3), 34894 FloatingPointX2 or 34895 FloatingPointX4 (DNG 1.4): each row's
/// bytes are stored as byte planes, most significant first, byte-differenced across the row with a
/// stride of samplesPerPixel × 1/2/4 bytes. Decoding follows the DNG SDK 1.7.1
/// (`dng_read_image::ReadTile`, `DNG_HalfToFloat`, `DNG_FP24ToFloat`: fp24 infinities become its
/// largest value, NaNs 0), except that damaged Deflate data is an error here, never a partial image.
///
/// Every block is checked before anything is allocated: its declared size against the image
/// (`JXLDNGDecoder.maximumBlockSide`), its bytes inside the file, an uncompressed block's byte
/// count against its rows, a Deflate block's inflated size against exactly its rows.
enum FloatDNGDecoder {
    /// Why `layout` is outside this decoder's scope; nil when it is inside.
    static func unsupportedReason(_ layout: DNGRawDataLayout) -> String? {
        guard layout.sampleFormat.allSatisfy({ $0 == 3 }) else { return "SampleFormat \(layout.sampleFormat)" }
        if ![1, 8, 32946].contains(layout.compression) { return "floating-point samples with Compression \(layout.compression)" }
        if layout.planarConfiguration != 1 { return "PlanarConfiguration \(layout.planarConfiguration)" }
        if layout.samplesPerPixel != 1 && layout.samplesPerPixel != 3 { return "\(layout.samplesPerPixel) samples per pixel" }
        guard let bits = layout.bitsPerSample.first, layout.bitsPerSample.allSatisfy({ $0 == bits }), [16, 24, 32].contains(bits)
        else { return "floating-point BitsPerSample \(layout.bitsPerSample)" }
        let predictors = layout.compression == 1 ? [1] : [1, 3, 34894, 34895]
        if !predictors.contains(layout.predictor) { return "Predictor \(layout.predictor) with floating-point samples" }
        if layout.rowInterleaveFactor != 1 || layout.columnInterleaveFactor != 1 { return "interleaved fields in an uncompressed or Deflate image" }
        return nil
    }

    /// The whole stored image as floats (row-major, samples of a pixel interleaved). `threads` 0
    /// means one worker per active core; the result never depends on it.
    static func decode(_ layout: DNGRawDataLayout, threads: Int, path: String) throws(DecodeError) -> [Float] {
        if let reason = unsupportedReason(layout) { throw .unsupported(path: path, reason: "floating-point DNG with \(reason)") }
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw .unreadable(path: path, reason: error.reason) }
        return try file.withDecodedBytes(path: path) { bytes throws(DecodeError) -> [Float] in
            let grid = try DNGBlockGrid(layout, path: path)
            let format = Format(bytes: (layout.bitsPerSample.first ?? 32) / 8, bigEndian: layout.bigEndian,
                                compression: layout.compression, predictor: layout.predictor, samplesPerPixel: layout.samplesPerPixel)
            try check(grid, format: format, fileSize: bytes.count, path: path)
            guard let base = bytes.baseAddress else { throw .truncated(path: path, detail: "file is empty") }
            let count = grid.width * grid.height * format.samplesPerPixel   // bounded by `check`
            let workers = max(1, min(threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount, grid.count))
            var failure: (block: Int, reason: String)?
            let pixels = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                let errors = UnsafeMutableBufferPointer<String?>.allocate(capacity: grid.count)
                errors.initialize(repeating: nil)
                defer { errors.deinitialize(); errors.deallocate() }
                let job = Job(grid: grid, format: format, file: base, out: buffer.baseAddress!, errors: errors)
                if workers == 1 { job.run(worker: 0, of: 1) } else {
                    DispatchQueue.concurrentPerform(iterations: workers) { k in job.run(worker: k, of: workers) }
                }
                if let i = errors.firstIndex(where: { $0 != nil }) { failure = (i, errors[i] ?? "") }
                initialized = count
            }
            if let failure {
                throw .corrupt(path: path, detail: "\(grid.kind.lowercased()) \(failure.block): \(failure.reason)")
            }
            return pixels
        }
    }

    /// How the samples of every block are stored.
    struct Format: Sendable {
        /// Bytes per sample: 2, 3 or 4.
        let bytes: Int
        let bigEndian: Bool
        let compression: Int
        let predictor: Int
        let samplesPerPixel: Int
        var deflate: Bool { compression != 1 }
        /// Pixels per predictor step (1, 2 or 4), 0 without the floating-point predictor.
        var predictorFactor: Int {
            switch predictor {
            case 3: return 1
            case 34894: return 2
            case 34895: return 4
            default: return 0
            }
        }
    }

    /// Every block inside the file and of a plausible size; the image size does not overflow.
    private static func check(_ grid: DNGBlockGrid, format: Format, fileSize: Int, path: String) throws(DecodeError) {
        guard grid.blockWidth <= max(grid.width, JXLDNGDecoder.maximumBlockSide),
              grid.blockLength <= max(grid.height, JXLDNGDecoder.maximumBlockSide) else {
            throw .corrupt(path: path, detail: "\(grid.kind.lowercased()) size \(grid.blockWidth)x\(grid.blockLength) is larger than the \(grid.width)x\(grid.height) image allows")
        }
        let (area, o1) = grid.width.multipliedReportingOverflow(by: grid.height)
        let (samples, o2) = area.multipliedReportingOverflow(by: format.samplesPerPixel)
        let (_, o3) = samples.multipliedReportingOverflow(by: 4)
        guard !o1, !o2, !o3 else { throw .corrupt(path: path, detail: "image size \(grid.width)x\(grid.height) overflows") }
        let factor = format.predictorFactor
        if factor > 1 && grid.blockWidth % factor != 0 {
            throw .corrupt(path: path, detail: "Predictor \(format.predictor) needs a \(grid.kind.lowercased()) width divisible by \(factor), not \(grid.blockWidth)")
        }
        var total = 0
        for i in 0..<grid.count {
            let offset = grid.offsets[i], count = grid.byteCounts[i]
            let (end, o4) = offset.addingReportingOverflow(count)
            guard offset >= 0, !o4, end <= fileSize else {
                throw .truncated(path: path, detail: "\(grid.kind.lowercased()) \(i) needs \(count) bytes at offset \(offset); the file has \(fileSize)")
            }
            let need = blockBytes(grid, i, format)
            if format.deflate {
                guard count > 0 else { throw .corrupt(path: path, detail: "\(grid.kind)ByteCounts[\(i)] is 0") }
                // zlib inflates at most ~1032:1; a block claiming more is not Deflate data.
                guard need / 1032 <= count else {
                    throw .corrupt(path: path, detail: "\(grid.kind.lowercased()) \(i): \(count) Deflate bytes cannot hold \(need)")
                }
            } else {
                guard count >= need else {
                    throw .corrupt(path: path, detail: "\(grid.kind)ByteCounts[\(i)] is \(count); its samples need \(need)")
                }
                total += need
                guard total <= fileSize else {
                    throw .corrupt(path: path, detail: "\(grid.kind.lowercased())s need more than the \(fileSize) bytes of the file (they overlap)")
                }
            }
        }
    }

    /// Stored bytes of block `i`: full tile width × its stored rows (a strip ends with the image).
    private static func blockBytes(_ grid: DNGBlockGrid, _ i: Int, _ format: Format) -> Int {
        let rows = grid.kind == "Strip" ? grid.rect(i).height : grid.blockLength
        return rows * grid.blockWidth * format.samplesPerPixel * format.bytes
    }

    /// Shared by the workers: the mapped file (read only), the output (disjoint blocks each) and
    /// one error slot per block.
    private struct Job: @unchecked Sendable {
        let grid: DNGBlockGrid
        let format: Format
        let file: UnsafeRawPointer
        let out: UnsafeMutablePointer<Float>
        let errors: UnsafeMutableBufferPointer<String?>

        func run(worker: Int, of workers: Int) {
            var scratch: [UInt8] = []
            for i in stride(from: worker, to: grid.count, by: workers) {
                errors[i] = decodeBlock(i, scratch: &scratch)
            }
        }

        /// One block into its place in `out`; nil on success, else the reason.
        private func decodeBlock(_ i: Int, scratch: inout [UInt8]) -> String? {
            let rect = grid.rect(i)
            let rows = grid.kind == "Strip" ? rect.height : grid.blockLength
            let spp = format.samplesPerPixel
            let rowSamples = grid.blockWidth * spp, rowBytes = rowSamples * format.bytes
            let need = rows * rowBytes
            let source = file + grid.offsets[i]
            if !format.deflate {
                for y in 0..<rect.height {
                    FloatDNGDecoder.convert(source + y * rowBytes, count: rect.width * spp, bytes: format.bytes,
                                            bigEndian: format.bigEndian, into: out + ((rect.y + y) * grid.width + rect.x) * spp)
                }
                return nil
            }
            // Inflate (one extra row of room for the predictor's output).
            if scratch.count < need + rowBytes { scratch = [UInt8](repeating: 0, count: need + rowBytes) }
            return scratch.withUnsafeMutableBytes { buf -> String? in
                let inflated = buf.baseAddress!
                var length = uLongf(need)
                let status = uncompress(inflated.assumingMemoryBound(to: Bytef.self), &length,
                                        source.assumingMemoryBound(to: Bytef.self), uLong(grid.byteCounts[i]))
                guard status == Z_OK else { return "Deflate data is damaged (zlib error \(status))" }
                guard Int(length) == need else { return "Deflate data holds \(length) bytes, its rows need \(need)" }
                let factor = format.predictorFactor
                let row = inflated + need   // the spare row
                for y in 0..<rect.height {
                    let src = inflated + y * rowBytes
                    let dst = out + ((rect.y + y) * grid.width + rect.x) * spp
                    if factor == 0 {
                        FloatDNGDecoder.convert(UnsafeRawPointer(src), count: rect.width * spp, bytes: format.bytes,
                                                bigEndian: format.bigEndian, into: dst)
                    } else {
                        FloatDNGDecoder.undoFloatingPointPredictor(src.assumingMemoryBound(to: UInt8.self), samples: rowSamples,
                                                                   stride: spp * factor, bytes: format.bytes,
                                                                   into: row.assumingMemoryBound(to: UInt8.self))
                        // The predictor leaves each sample's bytes most significant first.
                        FloatDNGDecoder.convert(UnsafeRawPointer(row), count: rect.width * spp, bytes: format.bytes,
                                                bigEndian: true, into: dst)
                    }
                }
                return nil
            }
        }
    }

    /// Undoes the floating-point predictor on one row of `samples` samples of `bytes` bytes:
    /// byte differences with a stride of `stride` bytes, then the byte planes (most significant
    /// first) gathered into big-endian samples in `out`.
    static func undoFloatingPointPredictor(_ row: UnsafeMutablePointer<UInt8>, samples: Int, stride: Int, bytes: Int,
                                           into out: UnsafeMutablePointer<UInt8>) {
        let n = samples * bytes
        if n > stride { for k in stride..<n { row[k] = row[k] &+ row[k - stride] } }
        for s in 0..<samples {
            for b in 0..<bytes { out[s * bytes + b] = row[b * samples + s] }
        }
    }

    /// `count` samples of `bytes` bytes (2 half, 3 fp24, 4 single) as floats.
    @inline(__always)
    static func convert(_ p: UnsafeRawPointer, count: Int, bytes: Int, bigEndian: Bool, into out: UnsafeMutablePointer<Float>) {
        switch bytes {
        case 2:
            for i in 0..<count {
                let raw = p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)
                out[i] = Float(Float16(bitPattern: bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)))
            }
        case 3:
            for i in 0..<count {
                let b0 = p.load(fromByteOffset: 3 * i, as: UInt8.self), b1 = p.load(fromByteOffset: 3 * i + 1, as: UInt8.self)
                let b2 = p.load(fromByteOffset: 3 * i + 2, as: UInt8.self)
                out[i] = bigEndian ? fp24ToFloat(b0, b1, b2) : fp24ToFloat(b2, b1, b0)
            }
        default:
            for i in 0..<count {
                let raw = p.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
                out[i] = Float(bitPattern: bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
            }
        }
    }

    /// DNG's 24-bit float (most significant byte first): sign, 7-bit exponent (bias 63), 16-bit
    /// mantissa. Denormals are renormalised; infinities become the largest fp24 value and NaNs 0,
    /// as the DNG SDK's `DNG_FP24ToFloat` does.
    static func fp24ToFloat(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> Float {
        let sign = UInt32(b0 >> 7) << 31
        var exponent = Int(b0 & 0x7F)
        var mantissa = UInt32(b1) << 8 | UInt32(b2)
        if exponent == 0 {
            if mantissa == 0 { return Float(bitPattern: sign) }
            while mantissa & 0x10000 == 0 { mantissa <<= 1; exponent -= 1 }
            exponent += 1
            mantissa &= ~0x10000
        } else if exponent == 127 {
            if mantissa != 0 { return 0 }
            return Float(bitPattern: sign | UInt32(0x7E + 128 - 64) << 23 | 0xFFFF << 7)
        }
        return Float(bitPattern: sign | UInt32(exponent + 128 - 64) << 23 | mantissa << 7)
    }

    // MARK: - Into RawImage

    /// Float samples as `RawImage`'s 16-bit samples, and the factor applied.
    ///
    /// A float DNG's stage 2 (DNG SDK) is (v − BlackLevel) / (WhiteLevel − BlackLevel) in float,
    /// not clipped; `RawImage` holds 16-bit integers. Each sample becomes round(v · s) with
    /// s = 65535 / max(largest WhiteLevel, largest finite sample): data within WhiteLevel keeps
    /// stage 2 = v / WhiteLevel to within ½ of a 16-bit code, and HDR data above WhiteLevel keeps
    /// its headroom (the white level then sits below 65535). Negative values and NaN become 0,
    /// +infinity 65535. The caller multiplies BlackLevel and WhiteLevel by s.
    static func quantise(_ samples: [Float], whiteLevel: [Double]) -> (pixels: [UInt16], scale: Double) {
        var peak = whiteLevel.filter { $0.isFinite && $0 > 0 }.max() ?? 1
        for v in samples where v.isFinite && Double(v) > peak { peak = Double(v) }
        let scale = 65535 / peak
        let pixels = samples.map { v -> UInt16 in
            guard v > 0 else { return 0 }   // also NaN
            let q = Double(v) * scale
            return q >= 65535 ? 65535 : UInt16(q.rounded())
        }
        return (pixels, scale)
    }
}
