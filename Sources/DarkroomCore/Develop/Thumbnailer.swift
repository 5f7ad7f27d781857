/// Makes the small 8-bit rendition embedded in outputs (JPEG IFD1, HEIF `thmb`).
public enum Thumbnailer {
    /// Box-filters `image` so its long side is at most `longSide` (integer area average over the
    /// source pixels each thumbnail pixel covers). 16-bit images are reduced to 8 bits.
    public static func thumbnail(of image: RenderedImage, longSide: Int) -> Thumbnail? {
        guard longSide > 0, image.width > 0, image.height > 0 else { return nil }
        let scale = Double(max(image.width, image.height)) / Double(longSide)
        let tw = scale <= 1 ? image.width : max(1, Int((Double(image.width) / scale).rounded()))
        let th = scale <= 1 ? image.height : max(1, Int((Double(image.height) / scale).rounded()))
        var out = [UInt8](repeating: 0, count: tw * th * 3)
        let sixteen = image.bitsPerSample == 16
        for ty in 0..<th {
            let y0 = ty * image.height / th, y1 = max(y0 + 1, (ty + 1) * image.height / th)
            for tx in 0..<tw {
                let x0 = tx * image.width / tw, x1 = max(x0 + 1, (tx + 1) * image.width / tw)
                var sum = SIMD3<UInt64>(0, 0, 0)
                for y in y0..<y1 { for x in x0..<x1 {
                    let i = (y * image.width + x) * 3
                    if sixteen {
                        sum &+= SIMD3(UInt64(image.pixels16[i]), UInt64(image.pixels16[i + 1]), UInt64(image.pixels16[i + 2]))
                    } else {
                        sum &+= SIMD3(UInt64(image.pixels8[i]), UInt64(image.pixels8[i + 1]), UInt64(image.pixels8[i + 2]))
                    }
                } }
                let n = UInt64((y1 - y0) * (x1 - x0)) * (sixteen ? 257 : 1)
                let o = (ty * tw + tx) * 3
                out[o] = UInt8((sum.x + n / 2) / n)
                out[o + 1] = UInt8((sum.y + n / 2) / n)
                out[o + 2] = UInt8((sum.z + n / 2) / n)
            }
        }
        return Thumbnail(width: tw, height: th, pixels: out)
    }
}
