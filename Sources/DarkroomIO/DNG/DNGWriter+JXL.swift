import DarkroomCore
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
        let stored = RawImage(width: image.width, height: image.height, samplesPerPixel: image.samplesPerPixel,
                              pixels: fieldInterleaved(image, factor: jxlFieldFactor(image)), metadata: image.metadata)
        let spp = image.samplesPerPixel
        let failures = TileStreams(count: 1)
        let streams = encodeTilesConcurrently(stored, size: tile, threads: threads, padding: .edge) { buffer in
            do throws(JXLTileEncoder.Failure) {
                return try JXLTileEncoder.encodeLossless(buffer, width: tile, height: tile, channels: spp, effort: effort)
            } catch {
                failures.set(0, Array(error.description.utf8))
                return []
            }
        }
        if let bad = failures.streams.first, !bad.isEmpty {
            throw .writeFailed(reason: String(decoding: bad, as: UTF8.self))
        }
        return streams
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
