import COpenEXR
import DarkroomCore

/// Writes a float `RenderedImage` (`bitsPerSample` 32, `pixels32`) as OpenEXR through the
/// library's C API (OpenEXR 3.1, Debian libopenexr-dev): one scanline part, channels R, G, B as
/// half (IEEE 754 binary16, round to nearest even) or float32, ZIP compression, and the
/// `chromaticities` attribute set to the image's colour space's primaries and white (OpenEXR's
/// way of naming the RGB space; EXR carries no ICC profile). Values are linear and not clipped.
public enum EXRWriter {
    public static func encode(_ image: RenderedImage, half: Bool) throws(EncodeError) -> [UInt8] {
        let w = image.width, h = image.height
        guard w > 0, h > 0, w <= 1 << 20, h <= 1 << 20 else { throw .invalidImage(format: "EXR", reason: "size \(w)x\(h)") }
        guard image.bitsPerSample == 32, image.pixels32.count == w * h * 3 else {
            throw .invalidImage(format: "EXR", reason: "needs a float render (\(image.bitsPerSample) bits per sample)")
        }
        guard let space = OutputColorSpace(rawValue: image.colorSpaceName) else {
            throw .invalidImage(format: "EXR", reason: "unknown colour space \(image.colorSpaceName)")
        }
        let chroma: [Float] = [space.red.x, space.red.y, space.green.x, space.green.y, space.blue.x, space.blue.y,
                               space.white.x, space.white.y].map { Float($0) }
        var buffer = dr_exr_buffer()
        defer { dr_exr_buffer_free(&buffer) }
        let status: Int32
        if half {
            let halves = image.pixels32.map { Float16($0).bitPattern }
            status = halves.withUnsafeBytes { p in
                chroma.withUnsafeBufferPointer { c in dr_exr_write_rgb(p.baseAddress, Int32(w), Int32(h), 1, c.baseAddress, &buffer) }
            }
        } else {
            status = image.pixels32.withUnsafeBytes { p in
                chroma.withUnsafeBufferPointer { c in dr_exr_write_rgb(p.baseAddress, Int32(w), Int32(h), 0, c.baseAddress, &buffer) }
            }
        }
        guard status == 0, let data = buffer.data else {
            let message = withUnsafeBytes(of: buffer.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw .library(format: "EXR", call: "exr_write", message: message.isEmpty ? "status \(status)" : message)
        }
        return Array(UnsafeBufferPointer(start: data, count: Int(buffer.size)))
    }
}
