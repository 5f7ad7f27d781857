import DarkroomCore
import Dispatch
import Foundation

extension DNGWriter {
    /// The field interleave factor a JPEG XL raw image is stored with: 2 (rows and columns) for a
    /// CFA mosaic at least 2 pixels a side, so each of the 2×2 colour sites is a smooth image of
    /// its own; 1 for LinearRaw.
    static func jxlFieldFactor(_ image: RawImage) -> Int {
        image.samplesPerPixel == 1 && image.width >= 2 && image.height >= 2 ? 2 : 1
    }

    /// The stored (field-interleaved) samples: image row y goes to stored row
    /// `DNGFieldInterleave.storedIndex`, columns likewise — the inverse of what the decoder undoes.
    static func fieldInterleaved(_ image: RawImage, factor: Int) -> [UInt16] {
        if factor == 1 { return image.pixels }
        let w = image.width, h = image.height, spp = image.samplesPerPixel
        let rows = DNGFieldInterleave.storedIndex(size: h, factor: factor)
        let columns = DNGFieldInterleave.storedIndex(size: w, factor: factor)
        var stored = [UInt16](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { src in
            stored.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let s = y * w * spp, d = rows[y] * w * spp
                    for x in 0..<w {
                        for c in 0..<spp { dst[d + columns[x] * spp + c] = src[s + x * spp + c] }
                    }
                }
            }
        }
        return stored
    }

    /// One lossless JPEG XL codestream per tile of the stored image, in tile order, encoded
    /// concurrently (`threads`; the bytes never depend on it). Every codestream is the full tile
    /// size, as the DNG SDK requires (`ReadJXL`: "mismatch tile size").
    static func encodeJXLTiles(_ image: RawImage, tile: Int, effort: Int, threads: Int) throws(TIFFError) -> [[UInt8]] {
        let factor = jxlFieldFactor(image)
        let stored = fieldInterleaved(image, factor: factor)
        let spp = image.samplesPerPixel, w = image.width, h = image.height
        let across = (w + tile - 1) / tile, down = (h + tile - 1) / tile, count = across * down
        let workers = max(1, min(count, threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount))
        let results = TileStreams(count: count)
        let failures = TileStreams(count: count)
        stored.withUnsafeBufferPointer { pixels in
            let source = SendablePixels(base: pixels)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                var buffer = [UInt16](repeating: 0, count: tile * tile * spp)
                var index = worker
                while index < count {
                    let ty = index / across, tx = index % across
                    let bw = min(tile, w - tx * tile), bh = min(tile, h - ty * tile)
                    // Full-size tiles (the DNG SDK requires the codestream to be the tile's declared
                    // size); an edge tile's padding repeats its last column and row.
                    buffer.withUnsafeMutableBufferPointer { dst in
                        let d = dst.baseAddress!
                        for y in 0..<bh {
                            let src = (ty * tile + y) * w * spp + tx * tile * spp
                            let row = d + y * tile * spp
                            row.update(from: source.base.baseAddress! + src, count: bw * spp)
                            for x in bw..<tile { for c in 0..<spp { row[x * spp + c] = row[(bw - 1) * spp + c] } }
                        }
                        for y in bh..<tile { (d + y * tile * spp).update(from: d + (bh - 1) * tile * spp, count: tile * spp) }
                    }
                    let outcome: Result<[UInt8], JXLTileEncoder.Failure> = buffer.withUnsafeBufferPointer { b in
                        Result { () throws(JXLTileEncoder.Failure) -> [UInt8] in
                            try JXLTileEncoder.encodeLossless(b, width: tile, height: tile, channels: spp, effort: effort)
                        }
                    }
                    switch outcome {
                    case .success(let stream): results.set(index, stream)
                    case .failure(let e): failures.set(index, Array(e.description.utf8))
                    }
                    index += workers
                }
            }
        }
        if let bad = failures.streams.first(where: { !$0.isEmpty }) {
            throw .writeFailed(reason: String(decoding: bad, as: UTF8.self))
        }
        return results.streams
    }

    /// Writes already-compressed tiles in order.
    static func writeRawTiles(_ tiles: [[UInt8]], _ t: borrowing LibTIFFWriter) throws(TIFFError) {
        for (index, stream) in tiles.enumerated() {
            let failure: TIFFError? = stream.withUnsafeBytes { b in
                do throws(TIFFError) { try t.writeRawTile(index, b); return nil } catch { return error }
            }
            if let failure { throw failure }
        }
    }
}
