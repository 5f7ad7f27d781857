import CJXL
import DarkroomCore
import Dispatch
import Foundation

/// Decodes JPEG XL DNG raw data (Compression 52546, DNG 1.7 §"JPEG XL compression"): every strip
/// or tile is one JPEG XL codestream, decoded by libjxl's decoder API and written straight into
/// the stored image at the block's place (edge blocks clipped to the image), blocks spread over
/// worker threads.
///
/// Sample mapping follows the DNG SDK 1.7.1 (`dng_read_image::ReadJXL`, `dng_jxl_decoder`): the
/// DNG's pixel type is 8-bit when BitsPerSample ≤ 8, 16-bit when ≤ 16 (SampleFormat 1), float
/// when SampleFormat is 3; the codestream is read as UINT8 when its `bits_per_sample` ≤ 8, UINT16
/// when it is an integer image of more bits, FLOAT when it has exponent bits, and the two types
/// must agree, as must the channel count (1 for CFA, 3 for LinearRaw). libjxl scales an integer
/// image of fewer bits than the output type to the type's full range, as it does for the SDK; the
/// SDK writes 8- and 16-bit codestreams for 8- and 16-bit data, so lossless files decode to their
/// stored values exactly. Orientation inside the codestream is ignored (`JxlDecoderSetKeepOrientation`).
///
/// Block size: a strip or tile's codestream must be exactly the block's declared size (TileWidth ×
/// TileLength; a strip is as wide as the image and its last one ends with the image) or that size
/// clipped to the image; any other size is an error, as is a block larger than
/// `maximumBlockSide` beyond the image's own size.
/// RowInterleaveFactor/ColumnInterleaveFactor are undone afterwards (`DNGFieldInterleave`).
enum JXLDNGDecoder {
    /// Compression 52546 (DNG 1.7).
    static let compression = 52546

    /// A block may be as large as the image or this many pixels a side, whichever is larger
    /// (bounds what libjxl allocates for one codestream).
    static let maximumBlockSide = 4096

    /// Why `layout` is outside this decoder's scope; nil when it is inside.
    static func unsupportedReason(_ layout: DNGRawDataLayout) -> String? {
        if layout.compression != compression { return "Compression \(layout.compression)" }
        if layout.planarConfiguration != 1 { return "PlanarConfiguration \(layout.planarConfiguration)" }
        if layout.samplesPerPixel != 1 && layout.samplesPerPixel != 3 { return "\(layout.samplesPerPixel) samples per pixel" }
        if sampleKind(layout) == nil { return "BitsPerSample \(layout.bitsPerSample), SampleFormat \(layout.sampleFormat)" }
        return nil
    }

    /// The DNG SDK's pixel type for the raw IFD (`dng_ifd::PixelType`), within what it reads as
    /// JPEG XL (8…16-bit unsigned integers, 16/24/32-bit floats).
    static func sampleKind(_ layout: DNGRawDataLayout) -> DNGSamples.Kind? {
        guard let bits = layout.bitsPerSample.first, layout.bitsPerSample.allSatisfy({ $0 == bits }),
              let format = layout.sampleFormat.first, layout.sampleFormat.allSatisfy({ $0 == format }) else { return nil }
        switch (format, bits) {
        case (1, 8): return .uint8
        case (1, 9...16): return .uint16
        case (3, 16), (3, 24), (3, 32): return .float
        default: return nil
        }
    }

    /// The whole stored image (row-major, samples of a pixel interleaved, fields de-interleaved).
    /// `threads` 0 means one worker per active core; the result never depends on it.
    static func decode(_ layout: DNGRawDataLayout, threads: Int, path: String) throws(DecodeError) -> DNGSamples {
        if let reason = unsupportedReason(layout) { throw .unsupported(path: path, reason: "JPEG XL DNG with \(reason)") }
        guard let kind = sampleKind(layout) else { throw .unsupported(path: path, reason: "JPEG XL DNG sample type") }
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw .unreadable(path: path, reason: error.reason) }
        return try file.withDecodedBytes(path: path) { bytes throws(DecodeError) -> DNGSamples in
            let grid = try DNGBlockGrid(layout, path: path)
            try checkBlocks(grid, fileSize: bytes.count, path: path)
            let interleave = try DNGFieldInterleave(layout, path: path)
            guard let base = bytes.baseAddress else { throw .truncated(path: path, detail: "file is empty") }
            let spp = layout.samplesPerPixel
            let (count, overflow) = grid.width.multipliedReportingOverflow(by: grid.height * spp)
            guard !overflow else { throw .corrupt(path: path, detail: "image size \(grid.width)x\(grid.height) overflows") }
            let workers = max(1, min(threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount, grid.count))
            var stored: DNGSamples
            var failure: DecodeError?
            switch kind {
            case .uint8, .uint16:
                let pixels = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                    failure = decodeBlocks(grid, file: base, out: UnsafeMutableRawPointer(buffer.baseAddress!), kind: kind,
                                           samplesPerPixel: spp, workers: workers, path: path)
                    initialized = count
                }
                stored = .integer(pixels)
            case .float:
                let pixels = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                    failure = decodeBlocks(grid, file: base, out: UnsafeMutableRawPointer(buffer.baseAddress!), kind: kind,
                                           samplesPerPixel: spp, workers: workers, path: path)
                    initialized = count
                }
                stored = .float(pixels)
            }
            if let failure { throw failure }
            if let interleave { stored = interleave.deinterleaved(stored, workers: workers) }
            return stored
        }
    }

    /// Every block inside the file, not empty, and not larger than the image allows.
    private static func checkBlocks(_ grid: DNGBlockGrid, fileSize: Int, path: String) throws(DecodeError) {
        guard grid.blockWidth <= max(grid.width, maximumBlockSide), grid.blockLength <= max(grid.height, maximumBlockSide) else {
            throw .corrupt(path: path, detail: "\(grid.kind.lowercased()) size \(grid.blockWidth)x\(grid.blockLength) is larger than the \(grid.width)x\(grid.height) image allows")
        }
        for i in 0..<grid.count {
            let offset = grid.offsets[i], count = grid.byteCounts[i]
            let (end, overflow) = offset.addingReportingOverflow(count)
            guard count > 0 else { throw .corrupt(path: path, detail: "\(grid.kind)ByteCounts[\(i)] is 0") }
            guard offset >= 0, !overflow, end <= fileSize else {
                throw .truncated(path: path, detail: "JPEG XL \(grid.kind.lowercased()) \(i) needs \(count) bytes at offset \(offset); the file has \(fileSize)")
            }
        }
    }

    /// Decodes every block into `out` (the stored image), block `i` by worker `i % workers`.
    /// Returns the error of the lowest-numbered block that failed, nil when all decoded.
    private static func decodeBlocks(_ grid: DNGBlockGrid, file: UnsafeRawPointer, out: UnsafeMutableRawPointer,
                                     kind: DNGSamples.Kind, samplesPerPixel: Int, workers: Int, path: String) -> DecodeError? {
        let errors = UnsafeMutableBufferPointer<TileFailure?>.allocate(capacity: grid.count)
        errors.initialize(repeating: nil)
        defer { errors.deinitialize(); errors.deallocate() }
        let job = Job(grid: grid, file: file, out: out, kind: kind, samplesPerPixel: samplesPerPixel, errors: errors)
        if workers == 1 {
            job.run(worker: 0, of: 1)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers) { k in job.run(worker: k, of: workers) }
        }
        guard let (i, f) = errors.enumerated().first(where: { $0.element != nil }).map({ ($0.offset, $0.element!) }) else { return nil }
        let what = "JPEG XL \(grid.kind.lowercased()) \(i)"
        switch f {
        case .libjxl(let reason): return .corrupt(path: path, detail: "\(what): libjxl: \(reason)")
        case .mismatch(let reason): return .corrupt(path: path, detail: "\(what): \(reason)")
        }
    }

    private enum TileFailure { case libjxl(String), mismatch(String) }

    /// Shared by the workers: the mapped file (read only), the output (disjoint blocks each) and
    /// one error slot per block.
    private struct Job: @unchecked Sendable {
        let grid: DNGBlockGrid
        let file: UnsafeRawPointer
        let out: UnsafeMutableRawPointer
        let kind: DNGSamples.Kind
        let samplesPerPixel: Int
        let errors: UnsafeMutableBufferPointer<TileFailure?>

        func run(worker: Int, of workers: Int) {
            guard let dec = JxlDecoderCreate(nil) else {
                for i in stride(from: worker, to: grid.count, by: workers) { errors[i] = .libjxl("cannot create a decoder") }
                return
            }
            defer { JxlDecoderDestroy(dec) }
            for i in stride(from: worker, to: grid.count, by: workers) {
                JxlDecoderReset(dec)
                errors[i] = decodeBlock(i, dec)
            }
        }

        /// One codestream into its place in `out`; nil on success.
        private func decodeBlock(_ i: Int, _ dec: OpaquePointer) -> TileFailure? {
            let rect = grid.rect(i)
            let fullLength = grid.kind == "Strip" ? rect.height : grid.blockLength
            var target = CallbackTarget(out: out, rowSamples: grid.width * samplesPerPixel, x0: rect.x, y0: rect.y,
                                        width: rect.width, height: rect.height, samplesPerPixel: samplesPerPixel, kind: kind)
            guard JxlDecoderSubscribeEvents(dec, Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue)) == JXL_DEC_SUCCESS,
                  JxlDecoderSetKeepOrientation(dec, 1) == JXL_DEC_SUCCESS,
                  JxlDecoderSetInput(dec, file.assumingMemoryBound(to: UInt8.self) + grid.offsets[i], grid.byteCounts[i]) == JXL_DEC_SUCCESS
            else { return .libjxl("cannot set up the decoder") }
            JxlDecoderCloseInput(dec)
            var sawInfo = false
            return withUnsafeMutablePointer(to: &target) { targetPointer -> TileFailure? in
                while true {
                    let status = JxlDecoderProcessInput(dec)
                    switch status {
                    case JXL_DEC_ERROR:
                        return .libjxl("corrupt codestream")
                    case JXL_DEC_NEED_MORE_INPUT:
                        return .libjxl("codestream ends early (truncated)")
                    case JXL_DEC_BASIC_INFO:
                        var info = JxlBasicInfo()
                        guard JxlDecoderGetBasicInfo(dec, &info) == JXL_DEC_SUCCESS else { return .libjxl("no basic info") }
                        let w = Int(info.xsize), h = Int(info.ysize)
                        guard (w == grid.blockWidth && h == fullLength) || (w == rect.width && h == rect.height) else {
                            return .mismatch("codestream is \(w)x\(h), the \(grid.kind.lowercased()) is \(grid.blockWidth)x\(fullLength)")
                        }
                        guard Int(info.num_color_channels) == samplesPerPixel else {
                            return .mismatch("codestream has \(info.num_color_channels) colour channels, the DNG \(samplesPerPixel) samples per pixel")
                        }
                        let streamKind: DNGSamples.Kind = info.exponent_bits_per_sample > 0 ? .float
                            : info.bits_per_sample <= 8 ? .uint8 : .uint16
                        guard streamKind == kind else {
                            return .mismatch("codestream holds \(info.exponent_bits_per_sample > 0 ? "float" : "\(info.bits_per_sample)-bit integer") samples, the DNG \(kind)")
                        }
                        sawInfo = true
                    case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                        guard sawInfo else { return .libjxl("image before basic info") }
                        var format = JxlPixelFormat(num_channels: UInt32(samplesPerPixel),
                                                    data_type: kind == .float ? JXL_TYPE_FLOAT : kind == .uint8 ? JXL_TYPE_UINT8 : JXL_TYPE_UINT16,
                                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
                        guard JxlDecoderSetImageOutCallback(dec, &format, jxlRowCallback, UnsafeMutableRawPointer(targetPointer)) == JXL_DEC_SUCCESS
                        else { return .libjxl("output format refused") }
                    case JXL_DEC_FULL_IMAGE:
                        return nil   // the first frame is the image
                    case JXL_DEC_SUCCESS:
                        return .libjxl("codestream has no image")
                    default:
                        return .libjxl("unexpected decoder event \(status.rawValue)")
                    }
                }
            }
        }
    }

    /// Where the row callback writes: the block's clipped rectangle in the stored image.
    struct CallbackTarget {
        let out: UnsafeMutableRawPointer
        /// Samples per row of the stored image.
        let rowSamples: Int
        let x0: Int, y0: Int, width: Int, height: Int
        let samplesPerPixel: Int
        let kind: DNGSamples.Kind
    }
}

/// libjxl's image-out callback: `num_pixels` pixels of codestream row `y` from column `x`,
/// copied to their place in the stored image (the part outside the image is dropped).
private func jxlRowCallback(_ opaque: UnsafeMutableRawPointer?, _ x: Int, _ y: Int, _ numPixels: Int,
                            _ pixels: UnsafeRawPointer?) {
    guard let opaque, let pixels else { return }
    let t = opaque.assumingMemoryBound(to: JXLDNGDecoder.CallbackTarget.self).pointee
    guard y < t.height, x < t.width else { return }
    let n = min(numPixels, t.width - x) * t.samplesPerPixel
    let first = (t.y0 + y) * t.rowSamples + (t.x0 + x) * t.samplesPerPixel
    switch t.kind {
    case .uint16:
        (t.out.assumingMemoryBound(to: UInt16.self) + first).update(from: pixels.assumingMemoryBound(to: UInt16.self), count: n)
    case .float:
        (t.out.assumingMemoryBound(to: Float.self) + first).update(from: pixels.assumingMemoryBound(to: Float.self), count: n)
    case .uint8:
        let dst = t.out.assumingMemoryBound(to: UInt16.self) + first
        let src = pixels.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n { dst[k] = UInt16(src[k]) }
    }
}
