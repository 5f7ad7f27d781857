import COpenEXR
import CTIFF
import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Float outputs: `--format tiff --bit-depth 32` (32-bit IEEE float TIFF) and `--format exr`
/// (OpenEXR half, or float with `--bit-depth 32`), read back with independent readers — libtiff
/// and OpenEXR's own decoder (its C API) plus `exrheader` — and compared with the linear render.
@Suite("Float output")
struct FloatOutputTests {
    static let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path

    static func recipe(bits: Int, space: OutputColorSpace = .p3) -> DevelopRecipe {
        var r = DevelopRecipe()
        r.bitsPerSample = bits
        r.colorSpace = space
        r.tone = .linear
        return r
    }

    /// The render the float outputs must hold: the plan FileDeveloper makes for a float output
    /// (32 bits, the colour space's linear variant, no thumbnail), rendered in process.
    static func linearRender(space: OutputColorSpace) throws -> RenderedImage {
        var r = recipe(bits: 32, space: space.linearVariant)
        r.thumbnailSize = 0
        let raw = try RawDecoder.decode(path: sample)
        let plan = try PlanBuilder.plan(for: raw, recipe: r, path: sample)
        return TileRenderer.render(raw, plan: plan)
    }

    /// libtiff's view of a float TIFF: tags and the samples as Float.
    static func libtiffFloat(_ path: String) throws -> (bits: Int, format: Int, predictor: Int, icc: [UInt8], width: Int, height: Int, pixels: [Float]) {
        let tif = try #require(TIFFOpen(path, "r"))
        defer { TIFFClose(tif) }
        func get<T>(_ tag: Int32, _ value: inout T) -> Bool {
            withUnsafeMutablePointer(to: &value) { p in withVaList([OpaquePointer(p)]) { TIFFVGetField(tif, UInt32(tag), $0) } != 0 }
        }
        var w: UInt32 = 0, h: UInt32 = 0, bits: UInt16 = 0, format: UInt16 = 0, predictor: UInt16 = 0
        _ = get(TIFFTAG_IMAGEWIDTH, &w); _ = get(TIFFTAG_IMAGELENGTH, &h); _ = get(TIFFTAG_BITSPERSAMPLE, &bits)
        _ = get(TIFFTAG_SAMPLEFORMAT, &format); _ = get(TIFFTAG_PREDICTOR, &predictor)
        var iccCount: UInt32 = 0
        var iccPointer: UnsafeMutableRawPointer? = nil
        let hasICC = withUnsafeMutablePointer(to: &iccCount) { c in withUnsafeMutablePointer(to: &iccPointer) { p in
            withVaList([OpaquePointer(c), OpaquePointer(p)]) { TIFFVGetField(tif, UInt32(TIFFTAG_ICCPROFILE), $0) } != 0
        } }
        let icc = hasICC && iccPointer != nil ? Array(UnsafeRawBufferPointer(start: iccPointer, count: Int(iccCount))) : []
        var pixels = [Float](repeating: .nan, count: Int(w) * Int(h) * 3)
        if bits == 32 {
            for y in 0..<Int(h) {
                let ok = pixels.withUnsafeMutableBufferPointer { TIFFReadScanline(tif, $0.baseAddress! + y * Int(w) * 3, UInt32(y), 0) }
                #expect(ok == 1)
            }
        }
        return (Int(bits), Int(format), Int(predictor), icc, Int(w), Int(h), pixels)
    }

    /// OpenEXR's decoder (C API) on the file's bytes.
    static func openEXR(_ bytes: [UInt8]) throws -> (width: Int, height: Int, type: Int, chroma: [Float], pixels: [Float]) {
        var buffer = dr_exr_buffer()
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        defer { copy.deallocate() }
        copy.initialize(from: bytes, count: bytes.count)
        buffer.data = copy
        buffer.size = UInt64(bytes.count)
        var image = dr_exr_image()
        let status = dr_exr_read_rgb(&buffer, &image)
        defer { free(image.rgb) }
        try #require(status == 0, "exr read status \(status)")
        let n = Int(image.width) * Int(image.height) * 3
        let chroma = withUnsafeBytes(of: image.chroma) { Array($0.bindMemory(to: Float.self)) }
        return (Int(image.width), Int(image.height), Int(image.pixel_type), image.has_chromaticities != 0 ? chroma : [],
                Array(UnsafeBufferPointer(start: image.rgb, count: n)))
    }

    /// 32-bit float TIFF: libtiff reads SampleFormat 3, 32 bits, the floating-point predictor, the
    /// linear variant's ICC profile, and every sample bit-identical to the linear render; the same
    /// render quantised as a 16-bit linear TIFF holds exactly round(clamp(v) × 65535) of each value.
    @Test func floatTIFFEqualsTheLinearRender() throws {
        guard FileManager.default.fileExists(atPath: Self.sample) else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let reference = try Self.linearRender(space: .p3)
        #expect(reference.bitsPerSample == 32 && reference.pixels32.count == reference.width * reference.height * 3)
        var export = ExportOptions()
        export.format = .tiff
        _ = try FileDeveloper.develop(input: Self.sample, output: dir + "/f.tif", recipe: Self.recipe(bits: 32), export: export)
        let t = try Self.libtiffFloat(dir + "/f.tif")
        #expect(t.bits == 32 && t.format == Int(SAMPLEFORMAT_IEEEFP) && t.predictor == Int(PREDICTOR_FLOATINGPOINT))
        #expect(t.width == reference.width && t.height == reference.height)
        #expect(t.icc == (try ICCProfileFactory.profile(for: .p3Linear)))
        #expect(t.pixels == reference.pixels32)
        // Values beyond 0…1 survive (the render is not clipped) and the picture is not empty.
        #expect((reference.pixels32.max() ?? 0) > 0.1)

        _ = try FileDeveloper.develop(input: Self.sample, output: dir + "/q.tif", recipe: Self.recipe(bits: 16, space: .p3Linear), export: export)
        let q = try #require(DNGTestSupport.libtiffRead(dir + "/q.tif", subIFD: false))
        #expect(q.pixels.count == reference.pixels32.count)
        var worst: Float = 0
        for (v, code) in zip(reference.pixels32, q.pixels) {
            let c = v >= 0 ? min(v, 1) : 0
            #expect(UInt16(c * 65535 + 0.5) == code)
            worst = max(worst, abs(c * 65535 - Float(code)))
        }
        #expect(worst <= 0.5)
    }

    /// OpenEXR float and half: OpenEXR's own decoder reads R, G, B of the chosen type, the
    /// colour space's primaries and white in `chromaticities`, and the linear render — bit-identical
    /// as float, each value the nearest half (`Float16(v)`) as half. `exrheader` (Debian `openexr`,
    /// when installed) agrees on the type and the chromaticities.
    @Test(arguments: [32, 16])
    func exrEqualsTheLinearRender(bits: Int) throws {
        guard FileManager.default.fileExists(atPath: Self.sample) else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let reference = try Self.linearRender(space: .rec2020)
        var export = ExportOptions()
        export.format = .exr
        let path = dir + "/f.exr"
        _ = try FileDeveloper.develop(input: Self.sample, output: path, recipe: Self.recipe(bits: bits, space: .rec2020), export: export)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes.prefix(4)) == [0x76, 0x2F, 0x31, 0x01])
        let e = try Self.openEXR(bytes)
        #expect(e.width == reference.width && e.height == reference.height)
        #expect(e.type == (bits == 32 ? Int(EXR_PIXEL_FLOAT.rawValue) : Int(EXR_PIXEL_HALF.rawValue)))
        // ITU-R BT.2020 primaries, D65 white.
        let expected: [Float] = [0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290]
        #expect(e.chroma.count == 8 && zip(e.chroma, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(e.chroma)")
        if bits == 32 {
            #expect(e.pixels == reference.pixels32)
        } else {
            var mismatches = 0
            for (a, v) in zip(e.pixels, reference.pixels32) where a != Float(Float16(v)) { mismatches += 1 }
            #expect(mismatches == 0)
            let worst = zip(e.pixels, reference.pixels32).map { abs($0 - $1) / max(abs($1), 6.1e-5) }.max() ?? 1
            #expect(worst <= 1.0 / 2048, "relative error \(worst) beyond half precision")
        }
        let tool = ["/usr/bin/exrheader", "/usr/local/bin/exrheader"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else { print("exrheader not installed: skipping its check"); return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = [path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains(bits == 32 ? "32-bit floating-point" : "16-bit floating-point"), "\(text)")
        #expect(text.contains("chromaticities"))
        #expect(text.contains("red   (0.708 0.292)") && text.contains("white (0.3127 0.329)"), "\(text)")
    }
}
