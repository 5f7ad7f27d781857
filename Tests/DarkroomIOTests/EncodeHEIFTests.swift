import CHeif
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Reads a HEIF with libheif directly and hands over the primary handle.
func withPrimaryHandle(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> Void) throws {
    let ctx = try #require(heif_context_alloc())
    defer { heif_context_free(ctx) }
    try bytes.withUnsafeBytes { raw in
        let err = heif_context_read_from_memory_without_copy(ctx, raw.baseAddress, raw.count, nil)
        #expect(err.code == heif_error_Ok)
        var h: OpaquePointer?
        #expect(heif_context_get_primary_image_handle(ctx, &h).code == heif_error_Ok)
        let handle = try #require(h)
        defer { heif_image_handle_release(handle) }
        try body(handle)
    }
}

@Suite("EncodeHEIF")
struct EncodeHEIFTests {
    @Test func gradientDefaultQualityICCExifThumbnail() throws {
        let img = EncodeFixtures.image()
        let heic = try HEIFWriter.encode(img, options: .init(dateTime: "2024:01:02 03:04:05"))
        let (w, h, px) = try OutputInspector.decodeRGB8(heic)
        #expect(w == 128 && h == 96)
        let psnr = EncodeFixtures.psnr(img.pixels8, px)
        print("HEIF q50 4:2:0 128x96: \(heic.count) bytes, PSNR \(String(format: "%.2f", psnr)) dB")
        #expect(psnr >= 36)
        try withPrimaryHandle(heic) { handle in
            #expect(heif_image_handle_get_luma_bits_per_pixel(handle) == 8)
            let n = heif_image_handle_get_raw_color_profile_size(handle)
            var icc = [UInt8](repeating: 0, count: n)
            _ = icc.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            #expect(icc == img.iccProfile)
            // ICC only by default, as iPhones write (iOS 12 rejects ICC + nclx).
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            #expect(heif_image_handle_get_nclx_color_profile(handle, &nclx).code != heif_error_Ok)
            if let nclx { heif_nclx_color_profile_free(nclx) }
            #expect(heif_image_handle_get_number_of_thumbnails(handle) == 1)
            #expect(heif_image_handle_get_number_of_metadata_blocks(handle, "Exif") == 1)
            var id: heif_item_id = 0
            _ = heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1)
            var exif = [UInt8](repeating: 0, count: heif_image_handle_get_metadata_size(handle, id))
            _ = exif.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            // 4-byte offset (0) to the TIFF header, then "MM\0*".
            #expect(Array(exif.prefix(8)) == [0, 0, 0, 0, 0x4D, 0x4D, 0x00, 0x2A])
        }
        let s = try OutputInspector.inspect(heic)
        #expect(s.thumbnail == .init(width: 64, height: 48))
        #expect(s.exif["Make"] == "Canon" && s.exif["DateTimeOriginal"] == "2021:06:05 14:03:22")
        #expect(s.orientation == 1)
        #expect(s.xmpBytes ?? 0 > 0)
        #expect(s.iccDescription == "sRGB built-in")
        if let j = EncodeFixtures.exiftool(heic) {
            #expect(j["Model"] as? String == "Canon EOS 6D")
            #expect(j["DateTimeOriginal"] as? String == "2021:06:05 14:03:22")
            #expect(j["Orientation"] as? Int == 1)
            #expect(j["Rating"] as? Int == 4)
        }
    }

    @Test func tenBitFrom16BitInput() throws {
        var img = EncodeFixtures.image(width: 64, height: 64, thumbnail: false)
        img.bitsPerSample = 16
        img.pixels16 = img.pixels8.map { UInt16($0) * 257 }
        img.pixels8 = []
        let heic = try HEIFWriter.encode(img, options: .init(quality: 80))
        try withPrimaryHandle(heic) { #expect(heif_image_handle_get_luma_bits_per_pixel($0) == 10) }
        let s = try OutputInspector.inspect(heic)
        #expect(s.bitsPerSample == 10)
    }

    @Test func chroma444BeatsChroma420() throws {
        let img = EncodeFixtures.image(thumbnail: false)
        let a = try OutputInspector.decodeRGB8(HEIFWriter.encode(img, options: .init(quality: 80, chroma: .s420))).pixels
        let b = try OutputInspector.decodeRGB8(HEIFWriter.encode(img, options: .init(quality: 80, chroma: .s444))).pixels
        #expect(EncodeFixtures.psnr(img.pixels8, b) > EncodeFixtures.psnr(img.pixels8, a))
    }

    /// `nclx: true` writes nclx beside the ICC when the space is exactly expressible.
    @Test func nclxOnRequest() throws {
        let img = EncodeFixtures.image(thumbnail: false)
        try withPrimaryHandle(HEIFWriter.encode(img, options: .init(nclx: true))) { handle in
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            #expect(heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok)
            #expect(nclx?.pointee.color_primaries == heif_color_primaries_ITU_R_BT_709_5)
            #expect(nclx?.pointee.transfer_characteristics == heif_transfer_characteristic_IEC_61966_2_1)
            #expect(nclx?.pointee.matrix_coefficients == heif_matrix_coefficients_ITU_R_BT_601_6)
            #expect(nclx?.pointee.full_range_flag == 1)
            heif_nclx_color_profile_free(nclx)
        }
    }

    @Test func nonNCLXSpaceKeepsICCOnly() throws {
        var img = EncodeFixtures.image(thumbnail: false)
        img.colorSpaceName = "prophoto"
        img.iccProfile = EncodeFixtures.largeProfile
        let s = try OutputInspector.inspect(HEIFWriter.encode(img, options: .init(nclx: true)))
        #expect(!s.hasNCLX)
        #expect(s.iccProfile == img.iccProfile)
    }

    @Test func mattesBecomeAuxiliaryImages() throws {
        let img = EncodeFixtures.image(mattes: [.portraitEffects, .skin, .sky])
        let heic = try HEIFWriter.encode(img)
        try withPrimaryHandle(heic) { handle in
            let filter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH)
            #expect(heif_image_handle_get_number_of_auxiliary_images(handle, filter) == 3)
            #expect(heif_image_handle_get_number_of_thumbnails(handle) == 1)
        }
        let s = try OutputInspector.inspect(heic)
        #expect(s.width == 128 && s.height == 96)
        #expect(Set(s.auxiliaryPlanes.map(\.urn)) == Set([MatteKind.portraitEffects, .skin, .sky].map(\.urn)))
        #expect(s.auxiliaryPlanes.allSatisfy { $0.width == 64 && $0.height == 48 })
        for m in img.mattes {
            let (w, h, px) = try OutputInspector.decodeAuxiliary(heic, urn: m.kind.urn)
            #expect(w == 64 && h == 48)
            #expect(EncodeFixtures.psnr(m.pixels, px) > 30)
        }
        // Still exactly one top-level image: the mattes are hidden auxiliaries, not pictures.
        let ctx = try #require(heif_context_alloc())
        defer { heif_context_free(ctx) }
        try heic.withUnsafeBytes { raw in
            #expect(heif_context_read_from_memory_without_copy(ctx, raw.baseAddress, raw.count, nil).code == heif_error_Ok)
        }
        #expect(heif_context_get_number_of_top_level_images(ctx) == 1)
        // heif-info (libheif's own tool) accepts the file, and its box dump shows auxC + auxl.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-info") {
            let path = try TestSupport.temporaryFile(heic, suffix: "heic")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let r = try TestSupport.runTool("/usr/bin/heif-info", ["-d", path])
            let out = r.stdout
            #expect(r.status == 0)
            for m in img.mattes { #expect(out.contains("aux type: \(m.kind.urn)")) }
            #expect(out.components(separatedBy: "reference with type 'auxl'").count == 4)
        }
    }

    @Test func threadOptionIsAccepted() throws {
        let heic = try HEIFWriter.encode(EncodeFixtures.image(width: 64, height: 48, thumbnail: false),
                                         options: .init(threads: 1, stripMetadata: true))
        let s = try OutputInspector.inspect(heic)
        #expect(s.width == 64 && s.exif.isEmpty && s.xmpBytes == nil)
    }

    @Test func invalidOptionsThrow() {
        #expect(throws: EncodeError.self) { try HEIFWriter.encode(EncodeFixtures.image(), options: .init(quality: 101)) }
        #expect(throws: EncodeError.self) { try HEIFWriter.encode(EncodeFixtures.image(), options: .init(bitDepth: 12)) }
        var bad = EncodeFixtures.image()
        bad.pixels8 = []
        #expect(throws: EncodeError.self) { try HEIFWriter.encode(bad) }
    }
}
