import CHeif
import CJPEG
import CLibRaw
import Foundation

/// The floor: the C libraries alone, without any Darkroom code around them.
enum Floor {
    /// LibRaw open + unpack (the raw sensor data in LibRaw's own buffer); returns pixel count.
    static func libRawUnpack(path: String) throws -> Int {
        guard let h = libraw_init(0) else { throw BenchFailure("libraw_init failed") }
        defer { libraw_close(h) }
        var rc = libraw_open_file(h, path)
        guard rc == 0 else { throw BenchFailure("\(path): libraw_open_file \(rc)") }
        rc = libraw_unpack(h)
        guard rc == 0 else { throw BenchFailure("\(path): libraw_unpack \(rc)") }
        return Int(h.pointee.sizes.raw_width) * Int(h.pointee.sizes.raw_height)
    }

    /// libjpeg-turbo compressing interleaved RGB (TJSAMP_444 for q ≥ 90 like JPEGWriter, else 420).
    static func jpeg(_ rgb: [UInt8], width: Int, height: Int, quality: Int, s444: Bool) throws -> [UInt8] {
        guard let tj = tjInitCompress() else { throw BenchFailure("tjInitCompress failed") }
        defer { tjDestroy(tj) }
        var buf: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = rgb.withUnsafeBufferPointer { p in
            tjCompress2(tj, p.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &buf, &size,
                        Int32(s444 ? TJSAMP_444.rawValue : TJSAMP_420.rawValue), Int32(quality), 0)
        }
        defer { if let buf { tjFree(buf) } }
        guard rc == 0, let buf else { throw BenchFailure("tjCompress2 failed") }
        return Array(UnsafeBufferPointer(start: buf, count: Int(size)))
    }

    static func decodeJPEG(_ jpeg: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        guard let tj = tjInitDecompress() else { throw BenchFailure("tjInitDecompress failed") }
        defer { tjDestroy(tj) }
        var w: Int32 = 0, h: Int32 = 0, ss: Int32 = 0, cs: Int32 = 0
        var rc = jpeg.withUnsafeBufferPointer { tjDecompressHeader3(tj, $0.baseAddress, UInt($0.count), &w, &h, &ss, &cs) }
        guard rc == 0, w > 0, h > 0 else { throw BenchFailure("tjDecompressHeader3 failed") }
        var out = [UInt8](repeating: 0, count: Int(w) * Int(h) * 3)
        rc = jpeg.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(tj, src.baseAddress, UInt(src.count), dst.baseAddress, w, 0, h, Int32(TJPF_RGB.rawValue), 0)
            }
        }
        guard rc == 0 else { throw BenchFailure("tjDecompress2 failed") }
        return (Int(w), Int(h), out)
    }
}

/// Direct libheif (x265) encoding with chosen parameters, for the preset/thread study.
enum HEIFStudyCodec {
    final class Sink { var bytes: [UInt8] = [] }

    static func check(_ e: heif_error, _ what: String) throws {
        guard e.code == heif_error_Ok else {
            throw BenchFailure("\(what): \(e.message.map { String(cString: $0) } ?? "libheif error \(e.code.rawValue)")")
        }
    }

    /// The x265 encoder's default value of a string parameter (e.g. "preset"), for the report.
    static func defaultParameter(_ name: String) -> String {
        guard let ctx = heif_context_alloc() else { return "?" }
        defer { heif_context_free(ctx) }
        var enc: OpaquePointer?
        guard heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &enc).code == heif_error_Ok, let enc else { return "?" }
        defer { heif_encoder_release(enc) }
        var buf = [CChar](repeating: 0, count: 64)
        if heif_encoder_get_parameter_string(enc, name, &buf, 64).code == heif_error_Ok {
            return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var i: Int32 = 0
        if heif_encoder_get_parameter_integer(enc, name, &i).code == heif_error_Ok { return "\(i)" }
        return "?"
    }

    /// Encodes 8-bit interleaved RGB. `quality` nil and empty `parameters` = libheif's defaults.
    static func encode(_ rgb: [UInt8], width: Int, height: Int, quality: Int?, parameters: [(String, String)]) throws -> [UInt8] {
        guard let ctx = heif_context_alloc() else { throw BenchFailure("heif_context_alloc") }
        defer { heif_context_free(ctx) }
        var encPtr: OpaquePointer?
        try check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encPtr), "get encoder")
        guard let enc = encPtr else { throw BenchFailure("no HEVC encoder") }
        defer { heif_encoder_release(enc) }
        if let q = quality { try check(heif_encoder_set_lossy_quality(enc, Int32(q)), "quality") }
        for (k, v) in parameters { try check(heif_encoder_set_parameter(enc, k, v), "parameter \(k)=\(v)") }

        var imgPtr: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &imgPtr), "image_create")
        guard let img = imgPtr else { throw BenchFailure("heif_image_create") }
        defer { heif_image_release(img) }
        try check(heif_image_add_plane(img, heif_channel_interleaved, Int32(width), Int32(height), 8), "add_plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(img, heif_channel_interleaved, &stride) else { throw BenchFailure("get_plane") }
        rgb.withUnsafeBufferPointer { src in
            for y in 0..<height {
                (plane + y * Int(stride)).update(from: src.baseAddress! + y * width * 3, count: width * 3)
            }
        }
        var handle: OpaquePointer?
        try check(heif_context_encode_image(ctx, img, enc, nil, &handle), "encode_image")
        if let handle { heif_image_handle_release(handle) }

        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, user in
            guard let user, let data else { return heif_error(code: heif_error_Encoding_error, subcode: heif_suberror_Unspecified, message: nil) }
            let s = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
            s.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try check(heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque()), "write")
        return sink.bytes
    }

    /// Decodes a HEIF's primary image to 8-bit interleaved RGB.
    static func decode(_ bytes: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        // The copy outlives the context (defers run in reverse order).
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        defer { copy.deallocate() }
        copy.copyBytes(from: bytes)
        guard let ctx = heif_context_alloc() else { throw BenchFailure("heif_context_alloc") }
        defer { heif_context_free(ctx) }
        try check(heif_context_read_from_memory_without_copy(ctx, copy.baseAddress, copy.count, nil), "read")
        var hPtr: OpaquePointer?
        try check(heif_context_get_primary_image_handle(ctx, &hPtr), "primary")
        guard let h = hPtr else { throw BenchFailure("no primary") }
        defer { heif_image_handle_release(h) }
        var imgPtr: OpaquePointer?
        try check(heif_decode_image(h, &imgPtr, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil), "decode")
        guard let img = imgPtr else { throw BenchFailure("decode gave no image") }
        defer { heif_image_release(img) }
        let w = Int(heif_image_get_width(img, heif_channel_interleaved)), hh = Int(heif_image_get_height(img, heif_channel_interleaved))
        var stride: Int32 = 0
        guard let p = heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride) else { throw BenchFailure("plane") }
        var out = [UInt8](repeating: 0, count: w * hh * 3)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<hh { (dst.baseAddress! + y * w * 3).update(from: p + y * Int(stride), count: w * 3) }
        }
        return (w, hh, out)
    }
}

/// RGB PSNR (all samples, peak 255).
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    var sum: UInt64 = 0
    a.withUnsafeBufferPointer { pa in
        b.withUnsafeBufferPointer { pb in
            for i in 0..<pa.count {
                let d = Int(pa[i]) - Int(pb[i])
                sum &+= UInt64(d * d)
            }
        }
    }
    let mse = Double(sum) / Double(a.count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}
