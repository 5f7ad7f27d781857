import Foundation

/// The MD5 digests of a DNG's stored raw image, computed as Adobe DNG SDK 1.7.1 computes them
/// (`dng_negative::FindImageDigest` and `dng_find_new_raw_image_digest_task`), so `dng_validate`
/// and Adobe software verify the tags we write.
///
/// Input: the stage-1 image, i.e. every stored sample of the raw IFD (before ActiveArea), 16-bit,
/// row-major with `samplesPerPixel` interleaved samples. Samples are hashed little-endian
/// whatever the host's order (the SDK's rule). 8-bit data (not written by us) would be hashed as
/// 16-bit by `RawImageDigest` and as bytes by `NewRawImageDigest`; only 16-bit is supported here.
public enum RawDigest {
    /// Tile edge of `NewRawImageDigest` (the SDK's `kTileSize`).
    public static let tileSize = 256

    /// `NewRawImageDigest` of raw data kept compressed, as the DNG SDK defines it for JPEG XL and
    /// lossy JPEG raw IFDs (`dng_lossy_compressed_image::FindDigest`): the MD5 of the MD5s of each
    /// tile's (or strip's) compressed bytes, in order. The SDK writes only this tag for such data.
    public static func compressedTilesDigest(_ tiles: [[UInt8]]) -> [UInt8] {
        let outer = MD5()
        for t in tiles { outer.update(MD5.hash(t)) }
        return outer.finalize()
    }

    /// `RawImageDigest` (tag 50972): MD5 of all samples, rows top to bottom, interleaved, 16-bit LE.
    public static func rawImageDigest(_ pixels: [UInt16]) -> [UInt8] {
        let md5 = MD5()
        pixels.withUnsafeBufferPointer { all in
            // Chunks of 64 Ki samples, converted only on a big-endian host.
            var start = 0
            while start < all.count {
                let end = min(all.count, start + 65536)
                hashLittleEndian(UnsafeBufferPointer(rebasing: all[start..<end]), into: md5)
                start = end
            }
        }
        return md5.finalize()
    }

    /// `NewRawImageDigest` (tag 51111): the image cut into 256×256 tiles from its top-left
    /// (edge tiles clipped, a tile never larger than the image), each tile's samples hashed
    /// planar (plane 0's rows, then plane 1's, …) as 16-bit LE; the result is the MD5 of the
    /// tile MD5s in row-major tile order. `eightBit`: samples stored in 8 bits are hashed as bytes. Tiles are hashed concurrently (`threads`; 0 = one per
    /// core); the value does not depend on it.
    public static func newRawImageDigest(_ pixels: [UInt16], width: Int, height: Int, samplesPerPixel spp: Int,
                                         eightBit: Bool = false, threads: Int = 0) -> [UInt8] {
        precondition(pixels.count == width * height * spp, "pixel count does not match the stated size")
        let tileW = min(tileSize, width), tileH = min(tileSize, height)
        let across = (width + tileW - 1) / tileW, down = (height + tileH - 1) / tileH
        let count = across * down
        var tileDigests = [UInt8](repeating: 0, count: count * 16)
        let workers = max(1, min(count, threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount))
        pixels.withUnsafeBufferPointer { src in
            tileDigests.withUnsafeMutableBufferPointer { out in
                let job = TileJob(src: src, out: out)
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    var buffer = [UInt16](repeating: 0, count: tileW * tileH * spp)
                    var index = worker
                    while index < count {
                        let ty = index / across, tx = index % across
                        let x0 = tx * tileW, y0 = ty * tileH
                        let w = min(tileW, width - x0), h = min(tileH, height - y0)
                        var k = 0
                        for plane in 0..<spp {
                            for y in y0..<(y0 + h) {
                                let row = (y * width + x0) * spp + plane
                                for x in 0..<w { buffer[k] = job.src[row + x * spp]; k += 1 }
                            }
                        }
                        let md5 = MD5()
                        if eightBit {
                            // 8-bit stored data is hashed as bytes (the SDK's ttByte pixel type).
                            let bytes = buffer[0..<k].map { UInt8(truncatingIfNeeded: $0) }
                            bytes.withUnsafeBytes { md5.update($0) }
                        } else {
                            buffer.withUnsafeBufferPointer { b in
                                hashLittleEndian(UnsafeBufferPointer(rebasing: b[0..<k]), into: md5)
                            }
                        }
                        for (i, byte) in md5.finalize().enumerated() { job.out[index * 16 + i] = byte }
                        index += workers
                    }
                }
            }
        }
        let md5 = MD5()
        md5.update(tileDigests)
        return md5.finalize()
    }

    /// `OriginalRawFileDigest` (tag 50973): MD5 of the OriginalRawFileData tag's bytes.
    public static func md5(_ bytes: [UInt8]) -> [UInt8] { MD5.hash(bytes) }

    /// An incremental MD5 (for OriginalRawFileDigest over streamed data).
    public struct MD5Stream {
        private let md5 = MD5()
        public init() {}
        public mutating func update(_ bytes: [UInt8]) { md5.update(bytes) }
        public func finalize() -> [UInt8] { md5.finalize() }
    }

    /// Lower-case hex of a digest.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    private struct TileJob: @unchecked Sendable {
        let src: UnsafeBufferPointer<UInt16>
        let out: UnsafeMutableBufferPointer<UInt8>
    }

    private static func hashLittleEndian(_ samples: UnsafeBufferPointer<UInt16>, into md5: MD5) {
        #if _endian(little)
        md5.update(UnsafeRawBufferPointer(samples))
        #else
        let swapped = samples.map { $0.littleEndian }
        swapped.withUnsafeBytes { md5.update($0) }
        #endif
    }
}
