import Dispatch

/// Makes the small 8-bit rendition embedded in outputs (JPEG IFD1, HEIF `thmb`).
public enum Thumbnailer {
    /// Box-filters `image` so its long side is at most `longSide` (integer area average over the
    /// source pixels each thumbnail pixel covers). 16-bit images are reduced to 8 bits.
    /// Rows are computed in parallel; the result does not depend on the thread count.
    public static func thumbnail(of image: RenderedImage, longSide: Int) -> Thumbnail? {
        guard longSide > 0, image.width > 0, image.height > 0 else { return nil }
        let scale = Double(max(image.width, image.height)) / Double(longSide)
        let tw = scale <= 1 ? image.width : max(1, Int((Double(image.width) / scale).rounded()))
        let th = scale <= 1 ? image.height : max(1, Int((Double(image.height) / scale).rounded()))
        var out = [UInt8](repeating: 0, count: tw * th * 3)
        let sixteen = image.bitsPerSample == 16
        let W = image.width, H = image.height
        out.withUnsafeMutableBufferPointer { outBuf in
        image.pixels8.withUnsafeBufferPointer { p8 in
        image.pixels16.withUnsafeBufferPointer { p16 in
            let job = Job(out: outBuf.baseAddress!, p8: p8.baseAddress, p16: p16.baseAddress)
            DispatchQueue.concurrentPerform(iterations: th) { ty in
                let y0 = ty * H / th, y1 = max(y0 + 1, (ty + 1) * H / th)
                for tx in 0..<tw {
                    let x0 = tx * W / tw, x1 = max(x0 + 1, (tx + 1) * W / tw)
                    var sr: UInt64 = 0, sg: UInt64 = 0, sb: UInt64 = 0
                    if sixteen, let q = job.p16 {
                        for y in y0..<y1 { sum(q + (y * W + x0) * 3, x1 - x0, &sr, &sg, &sb) }
                    } else if let q = job.p8 {
                        for y in y0..<y1 { sum(q + (y * W + x0) * 3, x1 - x0, &sr, &sg, &sb) }
                    }
                    let n = UInt64((y1 - y0) * (x1 - x0)) * (sixteen ? 257 : 1)
                    let o = (ty * tw + tx) * 3
                    job.out[o] = UInt8((sr + n / 2) / n)
                    job.out[o + 1] = UInt8((sg + n / 2) / n)
                    job.out[o + 2] = UInt8((sb + n / 2) / n)
                }
            }
        }
        }
        }
        return Thumbnail(width: tw, height: th, pixels: out)
    }

    /// Adds the R, G, B samples of `count` interleaved pixels (a row of one box) to the sums.
    @inline(__always)
    private static func sum<T: FixedWidthInteger & UnsignedInteger>(_ p: UnsafePointer<T>, _ count: Int,
                                                                    _ sr: inout UInt64, _ sg: inout UInt64, _ sb: inout UInt64) {
        // 32-bit partial sums over at most 256 pixels cannot overflow (256 × 65535 < 2³²).
        var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
        var k = 0
        while k < count {
            let n = min(count - k, 256)
            for i in k..<(k + n) { r &+= UInt32(p[3 * i]); g &+= UInt32(p[3 * i + 1]); b &+= UInt32(p[3 * i + 2]) }
            k += n
            sr &+= UInt64(r); sg &+= UInt64(g); sb &+= UInt64(b)
            r = 0; g = 0; b = 0
        }
    }

    private struct Job: @unchecked Sendable {
        let out: UnsafeMutablePointer<UInt8>
        let p8: UnsafePointer<UInt8>?
        let p16: UnsafePointer<UInt16>?
    }
}
