import CHeif
import DarkroomCore

public enum HEIFChroma: String, Sendable, Codable { case s420, s444 }

public struct HEIFOptions: Sendable {
    /// libheif lossy quality 0…100 (the x265 plugin maps it to CRF). The default, 50, with preset
    /// ultrafast at 4:4:4 measured 37.4 dB on a 12 MP render (JPEG q90 4:4:4: 37.1 dB) at half
    /// the JPEG's size, 4.5–4.9× less CPU than libheif's defaults (`make bench`).
    public var quality: Int
    /// 4:2:0 by default, as iPhones write (HEVC Main / Main Still Picture, which every HEIF
    /// decoder handles). 4:4:4 (`--chroma 444`, HEVC RExt) keeps more colour detail: libheif's
    /// RGB→4:2:0 conversion caps PSNR near 34.7 dB whatever the quality.
    public var chroma: HEIFChroma
    /// x265 preset (`ultrafast` … `placebo`). Default `ultrafast`: for stills only the preset and
    /// chroma moved the size/quality/time trade-off measurably.
    public var preset: String
    /// 8 or 10; `nil` = 10 for 16-bit input, 8 for 8-bit input.
    public var bitDepth: Int?
    /// x265 worker threads (`x265:pools`); `nil` lets x265 decide.
    public var threads: Int?
    /// When the image has no `thumbnail`, make one (`Thumbnailer`) fitting this box; `nil` = none.
    public var generatedThumbnailSize: Int?
    /// EXIF DateTime (`"YYYY:MM:DD HH:MM:SS"`); `nil` writes the current local time.
    public var dateTime: String?
    /// Write no EXIF/XMP (ICC, thumbnail and mattes stay).
    public var stripMetadata: Bool
    /// Also write an `nclx` `colr` box beside the ICC one (`--nclx`) when the colour space is
    /// exactly primaries + the sRGB curve (sRGB, Display P3). Off by default: iOS 12 rejects an
    /// image carrying both, and iPhones write the ICC profile only.
    public var nclx: Bool
    /// Edge, in pixels, of the square HEVC tiles the primary image is coded in, as a `grid`
    /// item (iPhones: 512). Images no larger than one tile still get a one-tile grid. 0 = the
    /// primary is one coded image.
    public var tileSize: Int

    public init(quality: Int = 50, chroma: HEIFChroma = .s420, preset: String = "ultrafast", bitDepth: Int? = nil,
                threads: Int? = nil, generatedThumbnailSize: Int? = nil, dateTime: String? = nil, stripMetadata: Bool = false,
                nclx: Bool = false, tileSize: Int = 512) {
        self.quality = quality; self.chroma = chroma; self.preset = preset; self.bitDepth = bitDepth; self.threads = threads
        self.generatedThumbnailSize = generatedThumbnailSize; self.dateTime = dateTime
        self.stripMetadata = stripMetadata; self.nclx = nclx; self.tileSize = tileSize
    }
}

/// Writes a `RenderedImage` as HEIC (HEVC via libheif + x265), laid out as iPhones write theirs
/// (compared item by item with ../shared/samples/heif's iPhone file in `HEIFStructureTests`):
///
/// - the primary image is a `grid` item of hidden `tileSize`² HEVC tiles (edge tiles repeat the
///   last row/column), 4:2:0 by default; the grid carries `ispe`, `pixi` and `colr` `prof` (the
///   ICC bytes, also on each tile) — and, with `nclx`, a second `colr` `nclx` (BT.709 or P3-D65
///   primaries, sRGB transfer, BT.601 matrix, full range) when the space is exactly expressible;
/// - EXIF and XMP items (`cdsc` → the grid);
/// - a `thmb` thumbnail item (shown, with the primary's ICC; at 4:2:0 cut to even sides);
/// - each matte a hidden monochrome HEVC item tagged with the linear grey ICC profile, joined to
///   the primary with `auxl` and an essential `auxC` URN, described by an XMP item (`cdsc`).
///
/// libheif 1.15 can write neither grids nor auxiliary images, so `ISOBMFFMetaEditor` adds the
/// `grid`, `dimg`, `auxl`, `auxC` and `thmb` boxes to the file libheif wrote.
public enum HEIFWriter {
    /// `mattes`, when given, supplies the auxiliary planes instead of `image.mattes`; it is called
    /// after the primary's tiles are coded, so planes still being computed elsewhere (semantic
    /// mattes) overlap with the primary's encoding. The bytes are those of `image` with
    /// `image.mattes` set to its result.
    public static func encode(_ image: RenderedImage, options: HEIFOptions = .init(),
                              mattes: (() throws(EncodeError) -> [AuxiliaryPlane])? = nil) throws(EncodeError) -> [UInt8] {
        guard (0...100).contains(options.quality) else {
            throw .invalidOption(format: "HEIF", reason: "quality \(options.quality) not in 0...100")
        }
        let depth = options.bitDepth ?? (image.bitsPerSample == 16 ? 10 : 8)
        guard depth == 8 || depth == 10 else {
            throw .invalidOption(format: "HEIF", reason: "bit depth \(depth) (8 or 10 supported)")
        }
        guard options.tileSize == 0 || (64...4096).contains(options.tileSize) && options.tileSize % 8 == 0 else {
            throw .invalidOption(format: "HEIF", reason: "tile size \(options.tileSize) (0, or a multiple of 8 in 64...4096)")
        }
        try validate(image)
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
        let writeNCLX = options.nclx && exactPrimaries != nil
        nclx.pointee.color_primaries = exactPrimaries ?? heif_color_primaries_unspecified
        nclx.pointee.transfer_characteristics = exactPrimaries != nil ? heif_transfer_characteristic_IEC_61966_2_1
                                                                      : heif_transfer_characteristic_unspecified
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.pointee.full_range_flag = 1
        // RGB→YCbCr (and the HEVC VUI) use this matrix; the nclx box itself is written only on request.
        encOptions.pointee.output_nclx_profile = nclx
        encOptions.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = writeNCLX ? 1 : 0
        encOptions.pointee.macOS_compatibility_workaround_no_nclx_profile = writeNCLX ? 0 : 1
        let colour = Colour(icc: image.iccProfile, nclx: writeNCLX ? nclx : nil)

        // Primary image: tiles (joined into a grid below) or one coded image.
        let tiling = Tiling(width: image.width, height: image.height, tileSize: options.tileSize, chroma: options.chroma)
        var tileIDs: [UInt32] = []
        var metadataHandle: OpaquePointer?
        defer { if let metadataHandle { heif_image_handle_release(metadataHandle) } }
        for r in 0..<tiling.rows {
            for c in 0..<tiling.columns {
                let img = try makeRGBImage(image, depth: depth, x: c * tiling.tileWidth, y: r * tiling.tileHeight,
                                           width: tiling.tileWidth, height: tiling.tileHeight)
                defer { heif_image_release(img) }
                try colour.apply(to: img)
                let (id, handle) = try encodeNewItem(ctx, img, encoder, encOptions, what: "tile \(r),\(c)")
                tileIDs.append(id)
                if metadataHandle == nil { metadataHandle = handle } else { heif_image_handle_release(handle) }
            }
        }
        guard let firstTile = metadataHandle, let firstTileID = tileIDs.first else {
            throw .container(format: "HEIF", reason: "no primary image was encoded")
        }

        // Mattes: monochrome items, later turned into auxiliary images.
        var matteItems: [(id: UInt32, urn: String)] = []
        let planes = try mattes?() ?? image.mattes
        for plane in planes {
            matteItems.append((try encodeMatte(plane, ctx: ctx, encoder: encoder), plane.kind.urn))
        }

        // Thumbnail.
        let thumbnailID = try encodeThumbnail(image, options: options, colour: colour, ctx: ctx, encoder: encoder,
                                              encOptions: encOptions)

        // Metadata, attached to the first tile here and moved to the grid below.
        if !options.stripMetadata {
            let tiff = ExifWriter.tiff(exif: image.exif, pixelWidth: image.width, pixelHeight: image.height,
                                       colorSpaceName: image.colorSpaceName, thumbnailJPEG: nil,
                                       dateTime: options.dateTime ?? ExifWriter.dateTimeNow())
            // libheif prepends the 4-byte offset to the TIFF header that ISO/IEC 23008-12 A.2.1 requires.
            try LibHeif.check(tiff.withUnsafeBytes {
                heif_context_add_exif_metadata(ctx, firstTile, $0.baseAddress, Int32($0.count))
            }, "heif_context_add_exif_metadata")
            // Camera Raw develop settings are dropped: the pixels are already developed.
            if let xmp = image.exif.xmp.map(XMPDevelopSettings.removingCameraRawSettings), !xmp.isEmpty {
                let bytes = Array(xmp.utf8)
                try LibHeif.check(bytes.withUnsafeBytes {
                    heif_context_add_XMP_metadata(ctx, firstTile, $0.baseAddress, Int32($0.count))
                }, "heif_context_add_XMP_metadata")
            }
        }

        let file = try LibHeif.write(ctx)
        var editor = try ISOBMFFMetaEditor(file)
        var primaryID = firstTileID
        if options.tileSize > 0 {
            var properties: [(type: String, payload: [UInt8], essential: Bool)] = []
            if !image.iccProfile.isEmpty { properties.append(("colr", Array("prof".utf8) + image.iccProfile, true)) }
            if writeNCLX, let p = exactPrimaries {
                properties.append(("colr", nclxPayload(primaries: UInt16(p.rawValue)), true))
            }
            properties.append(("ispe", [0, 0, 0, 0] + BigEndian.u32(UInt32(image.width)) + BigEndian.u32(UInt32(image.height)), false))
            properties.append(("pixi", [0, 0, 0, 0, 3, UInt8(depth), UInt8(depth), UInt8(depth)], false))
            primaryID = try editor.addGrid(tiles: tileIDs, rows: tiling.rows, columns: tiling.columns,
                                           width: image.width, height: image.height, properties: properties, primary: true)
            try editor.retargetReferences(type: "cdsc", from: firstTileID, to: primaryID)
            // iPhone tiles mark their ispe essential.
            try editor.setEssential(true, type: "ispe", items: Set(tileIDs))
        }
        // pixi is descriptive (ISO/IEC 23008-12 §6.5.6); iPhones mark it non-essential, libheif essential.
        try editor.setEssential(false, type: "pixi")
        // libheif 1.15's heif_context_assign_thumbnail writes the `thmb` reference backwards
        // (master → thumbnail), so the reference is ours.
        if let thumbnailID { try editor.addReference(type: "thmb", from: thumbnailID, to: [primaryID]) }
        for m in matteItems { try editor.makeAuxiliary(item: m.id, of: primaryID, urn: m.urn) }
        return try editor.serialize()
    }

    /// The ICC profile and optional nclx set on every colour image (tiles, thumbnail).
    struct Colour {
        let icc: [UInt8]
        let nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        func apply(to img: OpaquePointer) throws(EncodeError) {
            if !icc.isEmpty {
                try LibHeif.check(icc.withUnsafeBytes {
                    heif_image_set_raw_color_profile(img, "prof", $0.baseAddress, $0.count)
                }, "heif_image_set_raw_color_profile")
            }
            if let nclx { try LibHeif.check(heif_image_set_nclx_color_profile(img, nclx), "heif_image_set_nclx_color_profile") }
        }
    }

    /// How the primary is cut: `rows × columns` tiles of `tileWidth × tileHeight`. With tiles, a
    /// small image's tile shrinks to the image (rounded up to even sides for 4:2:0); without, one
    /// "tile" is the image itself.
    struct Tiling {
        let rows: Int, columns: Int, tileWidth: Int, tileHeight: Int
        init(width: Int, height: Int, tileSize: Int, chroma: HEIFChroma) {
            guard tileSize > 0 else { rows = 1; columns = 1; tileWidth = width; tileHeight = height; return }
            let even = { (v: Int) in chroma == .s420 ? (v + 1) & ~1 : v }
            tileWidth = min(tileSize, even(width)); tileHeight = min(tileSize, even(height))
            columns = (width + tileWidth - 1) / tileWidth; rows = (height + tileHeight - 1) / tileHeight
        }
    }

    /// An `nclx` `colr` payload (ISO/IEC 23091-2 codes): `primaries`, sRGB transfer (13), BT.601
    /// matrix (6), full range — what libheif writes for the same profile.
    static func nclxPayload(primaries: UInt16) -> [UInt8] {
        Array("nclx".utf8) + BigEndian.u16(primaries) + BigEndian.u16(13) + BigEndian.u16(6) + [0x80]
    }

    /// Encodes `img` and returns the ID of the item libheif made for it, with its handle (the
    /// caller releases it).
    static func encodeNewItem(_ ctx: OpaquePointer, _ img: OpaquePointer, _ encoder: OpaquePointer,
                              _ encOptions: UnsafeMutablePointer<heif_encoding_options>?,
                              what: String) throws(EncodeError) -> (UInt32, OpaquePointer) {
        let before = Set(LibHeif.topLevelIDs(ctx))
        var handle: OpaquePointer?
        try LibHeif.check(heif_context_encode_image(ctx, img, encoder, encOptions, &handle), "heif_context_encode_image(\(what))")
        guard let handle else { throw .library(format: "HEIF", call: "heif_context_encode_image(\(what))", message: "no handle") }
        guard let id = LibHeif.topLevelIDs(ctx).first(where: { !before.contains($0) }) else {
            heif_image_handle_release(handle)
            throw .container(format: "HEIF", reason: "cannot find the item libheif made for the \(what)")
        }
        return (id, handle)
    }

    /// Size and buffer checks shared by every path.
    static func validate(_ image: RenderedImage) throws(EncodeError) {
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
    }

    /// nclx colour primaries when the named space is exactly primaries + the sRGB transfer curve.
    static func nclxPrimaries(forColorSpace name: String) -> heif_color_primaries? {
        switch name.lowercased() {
        case "srgb": return heif_color_primaries_ITU_R_BT_709_5
        case "p3", "displayp3", "display-p3", "display p3": return heif_color_primaries_SMPTE_EG_432_1
        default: return nil
        }
    }

    /// An interleaved RGB `heif_image` (8-bit RGB or 10-bit RRGGBB little-endian) of
    /// `width × height` holding the image's pixels from (`x`, `y`); positions past the image's
    /// right or bottom edge repeat its last column or row. `validate` has checked the image.
    static func makeRGBImage(_ image: RenderedImage, depth: Int, x: Int = 0, y: Int = 0,
                             width: Int? = nil, height: Int? = nil) throws(EncodeError) -> OpaquePointer {
        let w = width ?? image.width, h = height ?? image.height
        let iw = image.width, ih = image.height
        guard w > 0, h > 0, x >= 0, y >= 0, x < iw, y < ih else {
            throw .invalidImage(format: "HEIF", reason: "region \(w)x\(h) at \(x),\(y) of \(iw)x\(ih)")
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
            let inside = min(w, iw - x)   // pixels of each row inside the image
            for ty in 0..<h {
                let sy = min(y + ty, ih - 1)
                let src = (sy * iw + x) * 3
                if depth == 8 {
                    let row = plane + ty * Int(stride)
                    if image.bitsPerSample == 8 {
                        image.pixels8.withUnsafeBufferPointer { s in
                            guard let base = s.baseAddress else { return }
                            row.update(from: base + src, count: inside * 3)
                        }
                    } else {
                        image.pixels16.withUnsafeBufferPointer { s in
                            for i in 0..<(inside * 3) { row[i] = UInt8((UInt32(s[src + i]) * 255 + 32767) / 65535) }
                        }
                    }
                    for tx in inside..<w { for k in 0..<3 { row[tx * 3 + k] = row[(inside - 1) * 3 + k] } }
                } else {
                    // 10-bit samples, little-endian 16-bit containers.
                    let row = UnsafeMutableRawPointer(plane + ty * Int(stride))
                    for i in 0..<(w * 3) {
                        let s = src + min(i / 3, inside - 1) * 3 + i % 3
                        let v: UInt32 = image.bitsPerSample == 16
                            ? (UInt32(image.pixels16[s]) * 1023 + 32767) / 65535
                            : (UInt32(image.pixels8[s]) * 1023 + 127) / 255
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

    /// Encodes one matte as a monochrome 8-bit HEVC item tagged with `LinearGrayProfile` (as
    /// iPhones tag theirs), plus its XMP item (`cdsc` → the matte), and returns the matte's item ID.
    static func encodeMatte(_ plane: AuxiliaryPlane, ctx: OpaquePointer, encoder: OpaquePointer) throws(EncodeError) -> UInt32 {
        guard plane.width > 0, plane.height > 0, plane.width <= 1 << 16, plane.height <= 1 << 16,
              plane.pixels.count == plane.width * plane.height else {
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
        try Colour(icc: LinearGrayProfile.bytes, nclx: nil).apply(to: img)
        let (id, handle) = try encodeNewItem(ctx, img, encoder, nil, what: "matte \(plane.kind.rawValue)")
        defer { heif_image_handle_release(handle) }
        // As iPhones do: an XMP item describing the matte, `cdsc` → the matte item.
        let xmp = Array(MatteXMP.packet(for: plane.kind).utf8)
        try LibHeif.check(xmp.withUnsafeBytes { heif_context_add_XMP_metadata(ctx, handle, $0.baseAddress, Int32($0.count)) },
                          "heif_context_add_XMP_metadata(matte)")
        return id
    }

    /// Encodes the thumbnail (`image.thumbnail`, or one made by `Thumbnailer` when
    /// `generatedThumbnailSize` is set) as a separate item with the primary's colour profile, and
    /// returns its ID (the `thmb` reference is added afterwards). At 4:2:0 an odd side loses its
    /// last row or column: HEVC 4:2:0 codes even sizes, and iPhone thumbnails have no `clap` crop.
    static func encodeThumbnail(_ image: RenderedImage, options: HEIFOptions, colour: Colour, ctx: OpaquePointer,
                                encoder: OpaquePointer,
                                encOptions: UnsafeMutablePointer<heif_encoding_options>) throws(EncodeError) -> UInt32? {
        var thumbnail = image.thumbnail
        if thumbnail == nil, let box = options.generatedThumbnailSize, box > 0 {
            thumbnail = Thumbnailer.thumbnail(of: image, longSide: box)
        }
        guard let t = thumbnail, t.width > 0, t.height > 0, t.pixels.count == t.width * t.height * 3 else { return nil }
        let thumbImage = RenderedImage(width: t.width, height: t.height, bitsPerSample: 8, pixels8: t.pixels,
                                       colorSpaceName: image.colorSpaceName, iccProfile: image.iccProfile)
        let even = { (v: Int) in options.chroma == .s420 ? max(2, v & ~1) : v }
        let img = try makeRGBImage(thumbImage, depth: 8, width: even(t.width), height: even(t.height))
        defer { heif_image_release(img) }
        try colour.apply(to: img)
        let (id, handle) = try encodeNewItem(ctx, img, encoder, encOptions, what: "thumbnail")
        heif_image_handle_release(handle)
        return id
    }
}
