import CHeif
import DarkroomCore

public enum HEIFChroma: String, Sendable, Codable { case s420, s444 }

public struct HEIFOptions: Sendable {
    /// libheif lossy quality 0…100 (the x265 plugin maps it to CRF). The default, 50, with preset
    /// ultrafast at 4:4:4 measured 37.4 dB on a 12 MP render (JPEG q90 4:4:4: 37.1 dB) at half
    /// the JPEG's size, 4.5–4.9× less CPU than libheif's defaults (`make bench`).
    public var quality: Int
    /// 4:4:4 by default: libheif's RGB→4:2:0 conversion caps PSNR near 34.7 dB whatever the
    /// quality. Use 4:2:0 (`--chroma 420`) for decoders limited to HEVC Main (older devices).
    public var chroma: HEIFChroma
    /// x265 preset (`ultrafast` … `placebo`). Default `ultrafast`: for stills only the preset and
    /// chroma moved the size/quality/time trade-off measurably.
    public var preset: String
    /// 8 or 10; `nil` = 10 for 16-bit input, 8 for 8-bit input.
    public var bitDepth: Int?
    /// x265 worker threads (`x265:pools`); `nil` lets x265 decide.
    public var threads: Int?
    /// When the image has no `thumbnail`, make one with libheif scaled to fit this box; `nil` = none.
    public var generatedThumbnailSize: Int?
    /// EXIF DateTime (`"YYYY:MM:DD HH:MM:SS"`); `nil` writes the current local time.
    public var dateTime: String?
    /// Write no EXIF/XMP (ICC/nclx, thumbnail and mattes stay).
    public var stripMetadata: Bool

    public init(quality: Int = 50, chroma: HEIFChroma = .s444, preset: String = "ultrafast", bitDepth: Int? = nil,
                threads: Int? = nil, generatedThumbnailSize: Int? = nil, dateTime: String? = nil, stripMetadata: Bool = false) {
        self.quality = quality; self.chroma = chroma; self.preset = preset; self.bitDepth = bitDepth; self.threads = threads
        self.generatedThumbnailSize = generatedThumbnailSize; self.dateTime = dateTime
        self.stripMetadata = stripMetadata
    }
}

/// Writes a `RenderedImage` as HEIC (HEVC via libheif + x265):
/// primary image with `colr` `prof` (the ICC bytes) and, when the colour space is exactly
/// expressible, a second `colr` `nclx` (BT.709 or P3-D65 primaries, sRGB transfer, BT.601 matrix,
/// full range); EXIF and XMP items (`cdsc`); a `thmb` thumbnail item; and each matte as a
/// monochrome HEVC item joined to the primary with `auxl` and an `auxC` URN, laid out as iPhones
/// do (libheif 1.15 cannot write auxiliary images, so `ISOBMFFMetaEditor` adds those boxes).
public enum HEIFWriter {
    public static func encode(_ image: RenderedImage, options: HEIFOptions = .init()) throws(EncodeError) -> [UInt8] {
        guard (0...100).contains(options.quality) else {
            throw .invalidOption(format: "HEIF", reason: "quality \(options.quality) not in 0...100")
        }
        let depth = options.bitDepth ?? (image.bitsPerSample == 16 ? 10 : 8)
        guard depth == 8 || depth == 10 else {
            throw .invalidOption(format: "HEIF", reason: "bit depth \(depth) (8 or 10 supported)")
        }
        guard LibHeif.initialized else { throw .library(format: "HEIF", call: "heif_init", message: "failed") }

        guard let ctx = heif_context_alloc() else {
            throw .library(format: "HEIF", call: "heif_context_alloc", message: "out of memory")
        }
        defer { heif_context_free(ctx) }
        var encoderPtr: OpaquePointer?
        try LibHeif.check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoderPtr),
                          "heif_context_get_encoder_for_format(HEVC)")
        guard let encoder = encoderPtr else {
            throw .library(format: "HEIF", call: "heif_context_get_encoder_for_format", message: "no HEVC encoder")
        }
        defer { heif_encoder_release(encoder) }
        try LibHeif.check(heif_encoder_set_parameter_string(encoder, "preset", options.preset),
                          "heif_encoder_set_parameter(preset)")
        try LibHeif.check(heif_encoder_set_lossy_quality(encoder, Int32(options.quality)), "heif_encoder_set_lossy_quality")
        try LibHeif.check(heif_encoder_set_parameter_string(encoder, "chroma", options.chroma == .s444 ? "444" : "420"),
                          "heif_encoder_set_parameter(chroma)")
        if let t = options.threads, t > 0 {
            try LibHeif.check(heif_encoder_set_parameter_string(encoder, "x265:pools", "\(t)"),
                              "heif_encoder_set_parameter(x265:pools)")
        }

        guard let encOptions = heif_encoding_options_alloc() else {
            throw .library(format: "HEIF", call: "heif_encoding_options_alloc", message: "out of memory")
        }
        defer { heif_encoding_options_free(encOptions) }
        guard let nclx = heif_nclx_color_profile_alloc() else {
            throw .library(format: "HEIF", call: "heif_nclx_color_profile_alloc", message: "out of memory")
        }
        defer { heif_nclx_color_profile_free(nclx) }
        let exactPrimaries = nclxPrimaries(forColorSpace: image.colorSpaceName)
        nclx.pointee.color_primaries = exactPrimaries ?? heif_color_primaries_unspecified
        nclx.pointee.transfer_characteristics = exactPrimaries != nil ? heif_transfer_characteristic_IEC_61966_2_1
                                                                      : heif_transfer_characteristic_unspecified
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.pointee.full_range_flag = 1
        // RGB→YCbCr uses this matrix; the nclx box itself is written only when it is exact.
        encOptions.pointee.output_nclx_profile = nclx
        encOptions.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = exactPrimaries != nil ? 1 : 0
        encOptions.pointee.macOS_compatibility_workaround_no_nclx_profile = exactPrimaries != nil ? 0 : 1

        // Primary image.
        let primaryImage = try makeRGBImage(image, depth: depth)
        defer { heif_image_release(primaryImage) }
        if !image.iccProfile.isEmpty {
            try LibHeif.check(image.iccProfile.withUnsafeBytes {
                heif_image_set_raw_color_profile(primaryImage, "prof", $0.baseAddress, $0.count)
            }, "heif_image_set_raw_color_profile")
        }
        if exactPrimaries != nil {
            try LibHeif.check(heif_image_set_nclx_color_profile(primaryImage, nclx), "heif_image_set_nclx_color_profile")
        }
        var primaryHandle: OpaquePointer?
        try LibHeif.check(heif_context_encode_image(ctx, primaryImage, encoder, encOptions, &primaryHandle),
                          "heif_context_encode_image(primary)")
        guard let primary = primaryHandle else {
            throw .library(format: "HEIF", call: "heif_context_encode_image", message: "no handle")
        }
        defer { heif_image_handle_release(primary) }
        var primaryID: heif_item_id = 0
        try LibHeif.check(heif_context_get_primary_image_ID(ctx, &primaryID), "heif_context_get_primary_image_ID")

        // Mattes: monochrome items, later turned into auxiliary images.
        var matteItems: [(id: UInt32, urn: String)] = []
        for plane in image.mattes {
            let before = Set(LibHeif.topLevelIDs(ctx))
            try encodeMatte(plane, ctx: ctx, encoder: encoder)
            guard let id = LibHeif.topLevelIDs(ctx).first(where: { !before.contains($0) }) else {
                throw .container(format: "HEIF", reason: "cannot find the item libheif made for matte \(plane.kind.rawValue)")
            }
            matteItems.append((id, plane.kind.urn))
        }

        // Thumbnail.
        let thumbnailID = try encodeThumbnail(image, options: options, ctx: ctx, encoder: encoder,
                                              encOptions: encOptions, primary: primary)

        // Metadata.
        if !options.stripMetadata {
            let tiff = ExifWriter.tiff(exif: image.exif, pixelWidth: image.width, pixelHeight: image.height,
                                       colorSpaceName: image.colorSpaceName, thumbnailJPEG: nil,
                                       dateTime: options.dateTime ?? ExifWriter.dateTimeNow())
            // libheif prepends the 4-byte offset to the TIFF header that ISO/IEC 23008-12 A.2.1 requires.
            try LibHeif.check(tiff.withUnsafeBytes {
                heif_context_add_exif_metadata(ctx, primary, $0.baseAddress, Int32($0.count))
            }, "heif_context_add_exif_metadata")
            if let xmp = image.exif.xmp, !xmp.isEmpty {
                let bytes = Array(xmp.utf8)
                try LibHeif.check(bytes.withUnsafeBytes {
                    heif_context_add_XMP_metadata(ctx, primary, $0.baseAddress, Int32($0.count))
                }, "heif_context_add_XMP_metadata")
            }
        }

        let file = try LibHeif.write(ctx)
        guard !matteItems.isEmpty || thumbnailID != nil else { return file }
        var editor = try ISOBMFFMetaEditor(file)
        // libheif 1.15's heif_context_assign_thumbnail writes the `thmb` reference backwards
        // (master → thumbnail), so the reference is ours.
        if let thumbnailID { try editor.addReference(type: "thmb", from: thumbnailID, to: [primaryID]) }
        for m in matteItems { try editor.makeAuxiliary(item: m.id, of: primaryID, urn: m.urn) }
        return try editor.serialize()
    }

    /// nclx colour primaries when the named space is exactly primaries + the sRGB transfer curve.
    static func nclxPrimaries(forColorSpace name: String) -> heif_color_primaries? {
        switch name.lowercased() {
        case "srgb": return heif_color_primaries_ITU_R_BT_709_5
        case "p3", "displayp3", "display-p3", "display p3": return heif_color_primaries_SMPTE_EG_432_1
        default: return nil
        }
    }

    /// An interleaved RGB `heif_image` (8-bit RGB or 10-bit RRGGBB little-endian).
    static func makeRGBImage(_ image: RenderedImage, depth: Int) throws(EncodeError) -> OpaquePointer {
        let w = image.width, h = image.height
        guard w > 0, h > 0, w <= 1 << 16, h <= 1 << 16 else {
            throw .invalidImage(format: "HEIF", reason: "size \(w)x\(h)")
        }
        let n = w * h * 3
        switch image.bitsPerSample {
        case 8 where image.pixels8.count == n, 16 where image.pixels16.count == n: break
        case 8, 16:
            throw .invalidImage(format: "HEIF", reason: "pixel buffer does not hold \(w)x\(h) RGB samples")
        default:
            throw .invalidImage(format: "HEIF", reason: "\(image.bitsPerSample) bits per sample (8 or 16 supported)")
        }
        var imgPtr: OpaquePointer?
        let chroma = depth == 8 ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RRGGBB_LE
        try LibHeif.check(heif_image_create(Int32(w), Int32(h), heif_colorspace_RGB, chroma, &imgPtr), "heif_image_create")
        guard let img = imgPtr else { throw .library(format: "HEIF", call: "heif_image_create", message: "no image") }
        do throws(EncodeError) {
            try LibHeif.check(heif_image_add_plane(img, heif_channel_interleaved, Int32(w), Int32(h), Int32(depth)),
                              "heif_image_add_plane")
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane(img, heif_channel_interleaved, &stride) else {
                throw EncodeError.library(format: "HEIF", call: "heif_image_get_plane", message: "no plane")
            }
            let rowSamples = w * 3
            if depth == 8 {
                let src = image.bitsPerSample == 8 ? image.pixels8
                                                   : image.pixels16.map { UInt8((UInt32($0) * 255 + 32767) / 65535) }
                src.withUnsafeBufferPointer { s in
                    guard let base = s.baseAddress else { return }
                    for y in 0..<h {
                        (plane + y * Int(stride)).update(from: base + y * rowSamples, count: rowSamples)
                    }
                }
            } else {
                // 10-bit samples, little-endian 16-bit containers.
                for y in 0..<h {
                    let row = UnsafeMutableRawPointer(plane + y * Int(stride))
                    for i in 0..<rowSamples {
                        let v: UInt32 = image.bitsPerSample == 16
                            ? (UInt32(image.pixels16[y * rowSamples + i]) * 1023 + 32767) / 65535
                            : (UInt32(image.pixels8[y * rowSamples + i]) * 1023 + 127) / 255
                        row.storeBytes(of: UInt16(v).littleEndian, toByteOffset: i * 2, as: UInt16.self)
                    }
                }
            }
        } catch {
            heif_image_release(img)
            throw error
        }
        return img
    }

    static func encodeMatte(_ plane: AuxiliaryPlane, ctx: OpaquePointer, encoder: OpaquePointer) throws(EncodeError) {
        guard plane.width > 0, plane.height > 0, plane.pixels.count == plane.width * plane.height else {
            throw .invalidImage(format: "HEIF", reason: "matte \(plane.kind.rawValue) is \(plane.width)x\(plane.height) with \(plane.pixels.count) samples")
        }
        var imgPtr: OpaquePointer?
        try LibHeif.check(heif_image_create(Int32(plane.width), Int32(plane.height), heif_colorspace_monochrome,
                                            heif_chroma_monochrome, &imgPtr), "heif_image_create(matte)")
        guard let img = imgPtr else { throw .library(format: "HEIF", call: "heif_image_create", message: "no image") }
        defer { heif_image_release(img) }
        try LibHeif.check(heif_image_add_plane(img, heif_channel_Y, Int32(plane.width), Int32(plane.height), 8),
                          "heif_image_add_plane(matte)")
        var stride: Int32 = 0
        guard let dst = heif_image_get_plane(img, heif_channel_Y, &stride) else {
            throw .library(format: "HEIF", call: "heif_image_get_plane", message: "no plane")
        }
        plane.pixels.withUnsafeBufferPointer { s in
            guard let base = s.baseAddress else { return }
            for y in 0..<plane.height {
                (dst + y * Int(stride)).update(from: base + y * plane.width, count: plane.width)
            }
        }
        var handle: OpaquePointer?
        try LibHeif.check(heif_context_encode_image(ctx, img, encoder, nil, &handle), "heif_context_encode_image(matte)")
        guard let handle else { throw .library(format: "HEIF", call: "heif_context_encode_image(matte)", message: "no handle") }
        defer { heif_image_handle_release(handle) }
        // As iPhones do: an XMP item describing the matte, `cdsc` → the matte item.
        let xmp = Array(MatteXMP.packet(for: plane.kind).utf8)
        try LibHeif.check(xmp.withUnsafeBytes { heif_context_add_XMP_metadata(ctx, handle, $0.baseAddress, Int32($0.count)) },
                          "heif_context_add_XMP_metadata(matte)")
    }

    /// Encodes `image.thumbnail` as a separate item and returns its ID (the `thmb` reference is
    /// added afterwards), or lets libheif scale and link one when `generatedThumbnailSize` is set.
    static func encodeThumbnail(_ image: RenderedImage, options: HEIFOptions, ctx: OpaquePointer, encoder: OpaquePointer,
                                encOptions: UnsafeMutablePointer<heif_encoding_options>,
                                primary: OpaquePointer) throws(EncodeError) -> UInt32? {
        if let t = image.thumbnail, t.width > 0, t.height > 0, t.pixels.count == t.width * t.height * 3 {
            let thumbImage = RenderedImage(width: t.width, height: t.height, bitsPerSample: 8, pixels8: t.pixels,
                                           colorSpaceName: image.colorSpaceName, iccProfile: image.iccProfile)
            let img = try makeRGBImage(thumbImage, depth: 8)
            defer { heif_image_release(img) }
            let before = Set(LibHeif.topLevelIDs(ctx))
            var handle: OpaquePointer?
            try LibHeif.check(heif_context_encode_image(ctx, img, encoder, encOptions, &handle), "heif_context_encode_image(thumbnail)")
            if let handle { heif_image_handle_release(handle) }
            guard let id = LibHeif.topLevelIDs(ctx).first(where: { !before.contains($0) }) else {
                throw .container(format: "HEIF", reason: "cannot find the item libheif made for the thumbnail")
            }
            return id
        } else if let box = options.generatedThumbnailSize, box > 0 {
            let img = try makeRGBImage(image, depth: 8)
            defer { heif_image_release(img) }
            var handle: OpaquePointer?
            try LibHeif.check(heif_context_encode_thumbnail(ctx, img, primary, encoder, encOptions, Int32(box), &handle),
                              "heif_context_encode_thumbnail")
            if let handle { heif_image_handle_release(handle) }
        }
        return nil
    }
}
