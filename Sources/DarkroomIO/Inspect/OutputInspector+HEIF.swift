import CHeif

extension OutputInspector {
    /// Runs `body` with a libheif context reading `bytes` and its primary image handle.
    static func withHEIF<T>(_ bytes: [UInt8], _ body: (OpaquePointer, OpaquePointer) throws(EncodeError) -> T) throws(EncodeError) -> T {
        guard LibHeif.initialized, let ctx = heif_context_alloc() else {
            throw .unreadable(format: "HEIF", reason: "cannot start libheif")
        }
        defer { heif_context_free(ctx) }
        let result: Result<T, EncodeError> = bytes.withUnsafeBytes { raw in
            do throws(EncodeError) { return .success(try readAndRun(ctx, raw, body)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private static func readAndRun<T>(_ ctx: OpaquePointer, _ raw: UnsafeRawBufferPointer,
                                      _ body: (OpaquePointer, OpaquePointer) throws(EncodeError) -> T) throws(EncodeError) -> T {
        let err = heif_context_read_from_memory_without_copy(ctx, raw.baseAddress, raw.count, nil)
        guard err.code == heif_error_Ok else {
            throw .unreadable(format: "HEIF", reason: err.message.map { String(cString: $0) } ?? "read failed")
        }
        var handle: OpaquePointer?
        try LibHeif.check(heif_context_get_primary_image_handle(ctx, &handle), "heif_context_get_primary_image_handle")
        guard let handle else { throw .unreadable(format: "HEIF", reason: "no primary image") }
        defer { heif_image_handle_release(handle) }
        return try body(ctx, handle)
    }

    static let auxFilter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH)

    static func inspectHEIF(_ bytes: [UInt8]) throws(EncodeError) -> OutputSummary {
        try withHEIF(bytes) { (_, h) throws(EncodeError) -> OutputSummary in
            var s = OutputSummary(format: .heif, width: Int(heif_image_handle_get_width(h)),
                                  height: Int(heif_image_handle_get_height(h)),
                                  bitsPerSample: Int(heif_image_handle_get_luma_bits_per_pixel(h)))
            let iccSize = heif_image_handle_get_raw_color_profile_size(h)
            if iccSize > 0 {
                var icc = [UInt8](repeating: 0, count: iccSize)
                try LibHeif.check(icc.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(h, $0.baseAddress) },
                                  "heif_image_handle_get_raw_color_profile")
                s.iccProfile = icc
                s.iccDescription = iccDescription(icc)
            }
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            if heif_image_handle_get_nclx_color_profile(h, &nclx).code == heif_error_Ok, let nclx {
                s.hasNCLX = true
                heif_nclx_color_profile_free(nclx)
            }
            if let exif = metadata(h, type: "Exif").first, exif.count >= 4 {
                // ISO/IEC 23008-12 A.2.1: 4-byte big-endian offset to the TIFF header, then the block.
                let skip = Int((try? ByteReader(bytes: exif, bigEndian: true).u32(0)) ?? UInt32.max)
                guard skip >= 0, 4 + skip < exif.count else {
                    throw .unreadable(format: "HEIF", reason: "Exif item offset \(skip) past its \(exif.count) bytes")
                }
                _ = try apply(exif: Array(exif[(4 + skip)...]), to: &s)
            }
            if let xmp = metadata(h, type: "mime").first { s.xmpBytes = xmp.count }

            let nThumbs = heif_image_handle_get_number_of_thumbnails(h)
            if nThumbs > 0 {
                var ids = [heif_item_id](repeating: 0, count: Int(nThumbs))
                _ = heif_image_handle_get_list_of_thumbnail_IDs(h, &ids, nThumbs)
                var t: OpaquePointer?
                if heif_image_handle_get_thumbnail(h, ids[0], &t).code == heif_error_Ok, let t {
                    s.thumbnail = .init(width: Int(heif_image_handle_get_width(t)), height: Int(heif_image_handle_get_height(t)))
                    heif_image_handle_release(t)
                }
            }
            for (aux, urn) in try auxiliaryHandles(h) {
                s.auxiliaryPlanes.append(.init(urn: urn, width: Int(heif_image_handle_get_width(aux)),
                                               height: Int(heif_image_handle_get_height(aux))))
                heif_image_handle_release(aux)
            }
            return s
        }
    }

    /// Auxiliary image handles (caller releases) with their `auxC` types, alpha/depth excluded.
    static func auxiliaryHandles(_ h: OpaquePointer) throws(EncodeError) -> [(OpaquePointer, String)] {
        let n = heif_image_handle_get_number_of_auxiliary_images(h, auxFilter)
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(n))
        let got = heif_image_handle_get_list_of_auxiliary_image_IDs(h, auxFilter, &ids, n)
        var out: [(OpaquePointer, String)] = []
        for id in ids.prefix(Int(max(got, 0))) {
            var aux: OpaquePointer?
            guard heif_image_handle_get_auxiliary_image_handle(h, id, &aux).code == heif_error_Ok, let aux else { continue }
            var type: UnsafePointer<CChar>?
            var urn = ""
            if heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok, let cType = type {
                urn = String(cString: cType)
                heif_image_handle_free_auxiliary_types(aux, &type)
            }
            out.append((aux, urn))
        }
        return out
    }

    static func metadata(_ h: OpaquePointer, type: String) -> [[UInt8]] {
        let n = heif_image_handle_get_number_of_metadata_blocks(h, type)
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(n))
        let got = heif_image_handle_get_list_of_metadata_block_IDs(h, type, &ids, n)
        return ids.prefix(Int(max(got, 0))).compactMap { id in
            let size = heif_image_handle_get_metadata_size(h, id)
            guard size > 0 else { return nil }
            var data = [UInt8](repeating: 0, count: size)
            let err = data.withUnsafeMutableBytes { heif_image_handle_get_metadata(h, id, $0.baseAddress) }
            return err.code == heif_error_Ok ? data : nil
        }
    }

    /// Decodes a handle to interleaved RGB (3 channels) or monochrome (1 channel) 8-bit pixels.
    static func decode(_ h: OpaquePointer, channels: Int) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) {
        var img: OpaquePointer?
        let (space, chroma, channel) = channels == 1
            // libheif 1.15 cannot convert a 4:0:0 grid to monochrome, but gives YCbCr 4:2:0 whose Y is the plane.
            ? (heif_colorspace_YCbCr, heif_chroma_420, heif_channel_Y)
            : (heif_colorspace_RGB, heif_chroma_interleaved_RGB, heif_channel_interleaved)
        try LibHeif.check(heif_decode_image(h, &img, space, chroma, nil), "heif_decode_image")
        guard let img else { throw .unreadable(format: "HEIF", reason: "decoder returned no image") }
        defer { heif_image_release(img) }
        let w = Int(heif_image_get_width(img, channel)), ht = Int(heif_image_get_height(img, channel))
        var stride: Int32 = 0
        guard w > 0, ht > 0, let plane = heif_image_get_plane_readonly(img, channel, &stride) else {
            throw .unreadable(format: "HEIF", reason: "decoded image has no plane")
        }
        var out = [UInt8](repeating: 0, count: w * ht * channels)
        out.withUnsafeMutableBufferPointer { dst in
            guard let base = dst.baseAddress else { return }
            for y in 0..<ht {
                (base + y * w * channels).update(from: plane + y * Int(stride), count: w * channels)
            }
        }
        return (w, ht, out)
    }

    static func decodeHEIFRGB8(_ bytes: [UInt8]) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) {
        try withHEIF(bytes) { (_, h) throws(EncodeError) in try decode(h, channels: 3) }
    }

    static func decodeHEIFAuxiliary(_ bytes: [UInt8], urn: String) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) {
        try withHEIF(bytes) { (_, h) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) in
            let handles = try auxiliaryHandles(h)
            defer { for (a, _) in handles { heif_image_handle_release(a) } }
            guard let aux = handles.first(where: { $0.1 == urn })?.0 else {
                throw .unreadable(format: "HEIF", reason: "no auxiliary image of type \(urn)")
            }
            return try decode(aux, channels: 1)
        }
    }
}
