import DarkroomCore
import Dispatch
import Foundation

/// Decodes uncompressed DNG raw data (Compression 1) from a memory map of the file straight into
/// the output buffer, rows spread over worker threads. LibRaw decodes every other case.
///
/// Scope (`unsupportedReason`): PlanarConfiguration 1, 1 (CFA) or 3 (LinearRaw) samples per
/// pixel, 8…16 unsigned-integer bits for every sample, FillOrder 1, no LinearizationTable, strips
/// or tiles, either byte order.
///
/// Packing (TIFF 6.0 section 2, DNG 1.7 "BitsPerSample"; LibRaw's DNG loader reads it the same
/// way): 8-bit samples are bytes; 16-bit samples are in the file's byte order; other depths are
/// an MSB-first bit stream in which every row — of a strip, or of a tile — starts on a byte
/// boundary.
///
/// Every strip or tile the image needs is checked before the output is allocated: data running
/// past the end of the file throws `.truncated`; a block count that does not match the image,
/// RowsPerStrip or tile size 0, a byte count too small for its rows, or blocks that together need
/// more bytes than the file holds throw `.corrupt`. The output is a copy of stored samples, so it
/// never depends on the thread count.
package enum UncompressedDNGDecoder {
    /// Why `layout` is outside this decoder's scope; nil when it is inside.
    package static func unsupportedReason(_ layout: DNGRawDataLayout) -> String? {
        if layout.compression != 1 { return "Compression \(layout.compression)" }
        if layout.planarConfiguration != 1 { return "PlanarConfiguration \(layout.planarConfiguration)" }
        if layout.samplesPerPixel != 1 && layout.samplesPerPixel != 3 { return "\(layout.samplesPerPixel) samples per pixel" }
        let bits = layout.bitsPerSample
        guard let first = bits.first, bits.count == 1 || bits.count == layout.samplesPerPixel,
              bits.allSatisfy({ $0 == first }), (8...16).contains(first) else { return "BitsPerSample \(bits)" }
        if !layout.sampleFormat.allSatisfy({ $0 == 1 }) { return "SampleFormat \(layout.sampleFormat)" }
        if layout.fillOrder != 1 { return "FillOrder \(layout.fillOrder)" }
        if layout.hasLinearizationTable { return "LinearizationTable" }
        return nil
    }

    /// The stored samples of `region` (stored-image coordinates), row-major with the samples of a
    /// pixel interleaved. `threads` 0 means one worker per active core. A layout outside the scope
    /// throws `.unsupported`.
    package static func decode(_ layout: DNGRawDataLayout, region: PixelRect, threads: Int, path: String) throws(DecodeError) -> [UInt16] {
        if let reason = unsupportedReason(layout) { throw .unsupported(path: path, reason: "uncompressed DNG with \(reason)") }
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw .unreadable(path: path, reason: error.reason) }
        return try file.withDecodedBytes(path: path) { bytes throws(DecodeError) in
            let blocks = try BlockGrid(layout, fileSize: bytes.count, path: path)
            guard !region.isEmpty, PixelRect(x: 0, y: 0, width: layout.width, height: layout.height).contains(region) else {
                throw .corrupt(path: path, detail: "region \(region) lies outside the \(layout.width)x\(layout.height) image")
            }
            guard let base = bytes.baseAddress else { throw .truncated(path: path, detail: "file is empty") }
            let spp = layout.samplesPerPixel
            let count = region.width * region.height * spp
            let workers = max(1, min(threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount, region.height))
            return [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let out = buffer.baseAddress else { initialized = 0; return }
                let job = Job(file: base, out: out, blocks: blocks, region: region, samplesPerPixel: spp)
                if workers == 1 {
                    job.decodeRows(0..<region.height)
                } else {
                    // Contiguous bands of rows, one per worker: every row costs the same.
                    DispatchQueue.concurrentPerform(iterations: workers) { k in
                        job.decodeRows(k * region.height / workers..<(k + 1) * region.height / workers)
                    }
                }
                initialized = count
            }
        }
    }

    // MARK: - Layout check

    /// `DNGBlockGrid` with every block the image needs checked against the file.
    package struct BlockGrid: Sendable {
        /// Stored width and rows of one block (a strip's rows are capped at the image height).
        let blockWidth: Int, blockLength: Int
        /// Blocks per row of blocks.
        let across: Int
        /// Bytes of one stored row of a block (rows start on byte boundaries).
        let rowBytes: Int
        let bits: Int
        let bigEndian: Bool
        /// File offset of each block's first byte.
        let offsets: [Int]

        init(_ layout: DNGRawDataLayout, fileSize: Int, path: String) throws(DecodeError) {
            let grid = try DNGBlockGrid(layout, path: path)
            let kind = grid.kind, blockWidth = grid.blockWidth, blockLength = grid.blockLength
            let spp = layout.samplesPerPixel, bits = layout.bitsPerSample.first ?? 16
            let height = layout.height, across = grid.across, needed = grid.count
            let rowBits = blockWidth * spp * bits
            let rowBytes = (rowBits - 1) / 8 + 1
            var total = 0
            for i in 0..<needed {
                let rows = min(blockLength, height - i / across * blockLength)
                let offset = layout.offsets[i], count = layout.byteCounts[i]
                let (need, o3) = rows.multipliedReportingOverflow(by: rowBytes)
                let (end, o4) = offset.addingReportingOverflow(need)
                if o3 || o4 || end > fileSize {
                    throw .truncated(path: path, detail: "\(kind.lowercased()) \(i) needs \(need) bytes at offset \(offset); the file has \(fileSize)")
                }
                if count < need {
                    throw .corrupt(path: path, detail: "\(kind)ByteCounts[\(i)] is \(count); its \(rows) rows of \(blockWidth * spp) \(bits)-bit samples need \(need)")
                }
                total += need
                if total > fileSize {
                    throw .corrupt(path: path, detail: "\(kind.lowercased())s need more than the \(fileSize) bytes of the file (they overlap)")
                }
            }
            self.blockWidth = blockWidth; self.blockLength = blockLength; self.across = across
            self.rowBytes = rowBytes; self.bits = bits; self.bigEndian = layout.bigEndian; self.offsets = layout.offsets
        }
    }

    // MARK: - Unpacking

    /// Shared by the workers: the mapped file (read only) and the output (disjoint rows each).
    private struct Job: @unchecked Sendable {
        let file: UnsafeRawPointer
        let out: UnsafeMutablePointer<UInt16>
        let blocks: BlockGrid
        let region: PixelRect
        let samplesPerPixel: Int

        /// Output rows `rows` (relative to `region`), each from the blocks its columns cross.
        func decodeRows(_ rows: Range<Int>) {
            let b = blocks, spp = samplesPerPixel
            for i in rows {
                let y = region.y + i
                let by = y / b.blockLength
                let rowInBlock = y - by * b.blockLength
                var x = region.x
                var dst = out + i * region.width * spp
                while x < region.maxX {
                    let bx = x / b.blockWidth, left = bx * b.blockWidth
                    let end = min(region.maxX, left + b.blockWidth)
                    let row = file + b.offsets[by * b.across + bx] + rowInBlock * b.rowBytes
                    UncompressedDNGDecoder.unpack(row: row, rowBytes: b.rowBytes, first: (x - left) * spp,
                                                  count: (end - x) * spp, bits: b.bits, bigEndian: b.bigEndian, into: dst)
                    dst += (end - x) * spp
                    x = end
                }
            }
        }
    }

    private static let hostBigEndian = 1.bigEndian == 1

    /// Samples `first..<first + count` of one stored row of `rowBytes` bytes (never read beyond).
    @inline(__always)
    package static func unpack(row: UnsafeRawPointer, rowBytes: Int, first: Int, count: Int, bits: Int, bigEndian: Bool,
                       into out: UnsafeMutablePointer<UInt16>) {
        switch bits {
        case 16:
            let p = row + 2 * first
            if bigEndian == hostBigEndian {
                UnsafeMutableRawPointer(out).copyMemory(from: p, byteCount: 2 * count)
            } else {
                for i in 0..<count { out[i] = p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self).byteSwapped }
            }
        case 8:
            for i in 0..<count { out[i] = UInt16(row.load(fromByteOffset: first + i, as: UInt8.self)) }
        default:
            // MSB-first: sample k occupies bits k·bits …< (k+1)·bits of the row, bit 0 being the
            // top bit of the first byte. An 8-byte big-endian window holds any sample (≤ 16 bits
            // at a bit offset ≤ 7); the last samples of the row are read byte by byte.
            var bit = first * bits
            var i = 0
            while i < count, bit >> 3 + 8 <= rowBytes {
                let window = UInt64(bigEndian: row.loadUnaligned(fromByteOffset: bit >> 3, as: UInt64.self))
                out[i] = UInt16(truncatingIfNeeded: (window &<< UInt64(bit & 7)) &>> UInt64(64 - bits))
                bit += bits; i += 1
            }
            let mask = UInt32(1) << bits - 1
            while i < count {
                let byte = bit >> 3
                var window: UInt32 = 0
                for k in 0..<3 {
                    let v = byte + k < rowBytes ? UInt32(row.load(fromByteOffset: byte + k, as: UInt8.self)) : 0
                    window = window << 8 | v
                }
                out[i] = UInt16(truncatingIfNeeded: window >> UInt32(24 - (bit & 7) - bits) & mask)
                bit += bits; i += 1
            }
        }
    }
}
