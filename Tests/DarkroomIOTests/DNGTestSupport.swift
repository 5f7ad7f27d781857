import CTIFF
import DarkroomCore
import Foundation
import Testing
@testable import DarkroomFormats
@testable import DarkroomIO

/// Shared fixtures for the DNG tests: a fully populated synthetic RawImage, temp paths and a
/// small libtiff reader used as the independent check of what DNGWriter wrote.
enum DNGTestSupport {
    /// The samples of a `width`-wide stored image inside `activeArea` (top, left, bottom, right;
    /// nil: all of it).
    static func activeSamples(_ samples: [UInt16], width: Int, height: Int, samplesPerPixel: Int,
                              activeArea: [UInt32]?) -> [UInt16] {
        let a = activeArea.map { PixelRect(x: Int($0[1]), y: Int($0[0]), width: Int($0[3] - $0[1]), height: Int($0[2] - $0[0])) }
            ?? PixelRect(x: 0, y: 0, width: width, height: height)
        return RawDecoder.crop(samples, width: width, spp: samplesPerPixel, to: a)
    }

    /// Two decodes give the same size, the same pixels (naming the first differing sample) and
    /// the same metadata.
    static func expectSame(_ a: RawImage, _ b: RawImage, _ label: String) {
        #expect(a.width == b.width && a.height == b.height && a.samplesPerPixel == b.samplesPerPixel, "\(label)")
        let firstDifference = a.pixels.count != b.pixels.count ? 0
            : zip(a.pixels, b.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "\(label): pixels differ (sample \(firstDifference ?? -1))")
        #expect(a.metadata == b.metadata, "\(label): metadata differ")
    }

    static func tempPath(_ name: String, subdirectory: String = "") -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-dngio-\(getpid())/\(subdirectory)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    /// Every metadata field DNGWriter writes, with values that survive 1/10000 rounding.
    static func fullMetadata(cfa: CFAPattern?, bits: Int, width: Int, height: Int, spp: Int) -> RawMetadata {
        var md = RawMetadata()
        md.fileFormat = "DNG"
        md.dngVersion = [1, 4, 0, 0]
        md.uniqueCameraModel = "Darkroom Test Cam"
        md.sensorWidth = width; md.sensorHeight = height
        md.samplesPerPixel = spp
        md.cfa = cfa
        md.bitsPerSample = 16
        md.compression = 1
        if spp == 1 {
            md.blackLevelRepeatRows = 2; md.blackLevelRepeatColumns = 2
            md.blackLevel = [100, 101.5, 102, 103.25]
        } else {
            md.blackLevel = [64, 64, 64]
        }
        md.blackLevelDeltaH = (0..<width).map { Double($0 % 3) * 0.5 }
        md.blackLevelDeltaV = (0..<height).map { Double($0 % 2) * 0.25 }
        md.whiteLevel = Array(repeating: Double((1 << bits) - 1), count: spp)
        md.defaultCrop = PixelRect(x: 2, y: 4, width: width - 6, height: height - 8)
        md.orientation = 6
        md.asShotNeutral = [0.4533, 1, 0.53]
        md.analogBalance = [1, 1, 1]
        md.cameraCalibration1 = Matrix3([1.01, 0, 0, 0, 1, 0, 0, 0, 0.99])
        md.cameraCalibration2 = Matrix3([0.98, 0, 0, 0, 1, 0, 0, 0, 1.02])
        md.cameraCalibrationSignature = "com.darkroom.calibration"
        md.baselineExposure = -0.35
        md.baselineNoise = 0.8
        md.baselineSharpness = 1.25
        md.linearResponseLimit = 0.9
        md.noiseProfile = [2.1e-5, 3.3e-7, 2.2e-5, 3.1e-7, 2.0e-5, 3.0e-7]
        var p = CameraProfile()
        p.name = "Darkroom Standard"
        p.calibrationIlluminant1 = 17
        p.calibrationIlluminant2 = 21
        p.colorMatrix1 = Matrix3([0.8716, -0.2692, -0.0907, -0.4446, 1.2201, 0.2466, -0.0556, 0.1205, 0.6757])
        p.colorMatrix2 = Matrix3([0.6722, -0.0635, -0.0963, -0.4287, 1.246, 0.183, -0.1189, 0.2162, 0.6258])
        p.forwardMatrix1 = Matrix3([0.7978, 0.1352, 0.0313, 0.288, 0.7119, 0.0001, 0, 0, 0.8251])
        p.forwardMatrix2 = Matrix3([0.7102, 0.1976, 0.0565, 0.2685, 0.7452, -0.0137, 0.0136, -0.2049, 1.0164])
        p.baselineExposureOffset = 0.25
        md.profile = p
        md.opcodeList1 = [0, 0, 0, 1, 0, 0, 0, 4, 1, 3, 0, 0, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0]
        // A well-formed list holding one optional opcode of a future kind (id 99): opaque
        // bytes that every reader must carry unchanged and skip.
        md.opcodeList2 = [0, 0, 0, 1, 0, 0, 0, 99, 1, 7, 0, 0, 0, 0, 0, 1, 0, 0, 0, 180] + Array(0..<180).map { UInt8($0 & 0xFF) }
        md.opcodeList3 = [0, 0, 0, 0]
        md.exif.make = "Darkroom"
        md.exif.model = "Test Cam"
        md.exif.software = "darkroom-tests"
        md.exif.artist = "Ansel"
        md.exif.copyright = "CC0"
        md.exif.dateTimeOriginal = "2024:05:06 07:08:09"
        return md
    }

    /// A deterministic ramp/noise mosaic within `bits`.
    static func image(cfa: CFAPattern?, bits: Int, width: Int = 70, height: Int = 50, spp: Int = 1) -> RawImage {
        let mask = (1 << bits) - 1
        let pixels = (0..<(width * height * spp)).map { i in UInt16((i &* 2654435761 >> 7 ^ i) & mask) }
        return RawImage(width: width, height: height, samplesPerPixel: spp, pixels: pixels,
                        metadata: fullMetadata(cfa: cfa, bits: bits, width: width, height: height, spp: spp))
    }

    // MARK: - libtiff readback

    struct LibTIFFView {
        var width = 0, height = 0, bits = 0, spp = 0, photometric = 0, subfileType = 0
        var isTiled = false
        var pixels: [UInt16] = []
        var cfaPattern: [UInt8] = []
        var dngVersion: [UInt8] = []
        var make = ""
        var subIFDCount = 0
        var whiteLevel: [UInt32] = []
    }

    static func get<T>(_ tif: OpaquePointer, _ tag: Int32, _ value: inout T) -> Bool {
        withUnsafeMutablePointer(to: &value) { p in
            withVaList([OpaquePointer(p)]) { TIFFVGetField(tif, UInt32(tag), $0) } != 0
        }
    }

    /// Reads directory `ifdIndex` (0 = IFD0, 1 = its first SubIFD) with libtiff.
    static func libtiffRead(_ path: String, subIFD: Bool) -> LibTIFFView? {
        guard let tif = TIFFOpen(path, "r") else { return nil }
        defer { TIFFClose(tif) }
        var v = LibTIFFView()
        var n: UInt16 = 0
        var offsets: UnsafeMutablePointer<UInt64>? = nil
        let hasSub = withUnsafeMutablePointer(to: &n) { np in withUnsafeMutablePointer(to: &offsets) { op in
            withVaList([OpaquePointer(np), OpaquePointer(op)]) { TIFFVGetField(tif, UInt32(TIFFTAG_SUBIFD), $0) } != 0
        } }
        v.subIFDCount = hasSub ? Int(n) : 0
        var version: UnsafeMutablePointer<UInt8>? = nil
        if get(tif, TIFFTAG_DNGVERSION, &version), let version { v.dngVersion = Array(UnsafeBufferPointer(start: version, count: 4)) }
        var make: UnsafeMutablePointer<CChar>? = nil
        if get(tif, TIFFTAG_MAKE, &make), let make { v.make = String(cString: make) }
        if subIFD {
            guard hasSub, let offsets, TIFFSetSubDirectory(tif, offsets[0]) != 0 else { return nil }
        }
        var w: UInt32 = 0, h: UInt32 = 0, bits: UInt16 = 0, spp: UInt16 = 0, photo: UInt16 = 0, sub: UInt32 = 0
        _ = get(tif, TIFFTAG_IMAGEWIDTH, &w); _ = get(tif, TIFFTAG_IMAGELENGTH, &h)
        _ = get(tif, TIFFTAG_BITSPERSAMPLE, &bits); _ = get(tif, TIFFTAG_SAMPLESPERPIXEL, &spp)
        _ = get(tif, TIFFTAG_PHOTOMETRIC, &photo); _ = get(tif, TIFFTAG_SUBFILETYPE, &sub)
        v.width = Int(w); v.height = Int(h); v.bits = Int(bits); v.spp = Int(spp)
        v.photometric = Int(photo); v.subfileType = Int(sub)
        var count: UInt16 = 0
        var pattern: UnsafeMutablePointer<UInt8>? = nil
        let hasCFA = withUnsafeMutablePointer(to: &count) { cp in withUnsafeMutablePointer(to: &pattern) { pp in
            withVaList([OpaquePointer(cp), OpaquePointer(pp)]) { TIFFVGetField(tif, UInt32(TIFFTAG_CFAPATTERN), $0) } != 0
        } }
        if hasCFA, let pattern { v.cfaPattern = Array(UnsafeBufferPointer(start: pattern, count: Int(count))) }
        var whiteCount: UInt16 = 0
        var white: UnsafeMutablePointer<UInt32>? = nil
        let hasWhite = withUnsafeMutablePointer(to: &whiteCount) { cp in withUnsafeMutablePointer(to: &white) { wp in
            withVaList([OpaquePointer(cp), OpaquePointer(wp)]) { TIFFVGetField(tif, UInt32(TIFFTAG_WHITELEVEL), $0) } != 0
        } }
        if hasWhite, let white { v.whiteLevel = Array(UnsafeBufferPointer(start: white, count: Int(whiteCount))) }
        guard bits == 16 else { return v }
        v.isTiled = TIFFIsTiled(tif) != 0
        let rowSamples = v.width * v.spp
        var out = [UInt16](repeating: 0, count: v.height * rowSamples)
        if v.isTiled {
            var tw: UInt32 = 0, th: UInt32 = 0
            _ = get(tif, TIFFTAG_TILEWIDTH, &tw); _ = get(tif, TIFFTAG_TILELENGTH, &th)
            var tile = [UInt16](repeating: 0, count: Int(tw * th) * v.spp)
            for ty in stride(from: 0, to: v.height, by: Int(th)) {
                for tx in stride(from: 0, to: v.width, by: Int(tw)) {
                    let index = TIFFComputeTile(tif, UInt32(tx), UInt32(ty), 0, 0)
                    let got = tile.withUnsafeMutableBytes { TIFFReadEncodedTile(tif, index, $0.baseAddress, tmsize_t($0.count)) }
                    guard got > 0 else { return nil }
                    for y in 0..<min(Int(th), v.height - ty) {
                        for x in 0..<(min(Int(tw), v.width - tx) * v.spp) {
                            out[(ty + y) * rowSamples + tx * v.spp + x] = tile[y * Int(tw) * v.spp + x]
                        }
                    }
                }
            }
        } else {
            let strips = Int(TIFFNumberOfStrips(tif))
            var offset = 0
            for s in 0..<strips {
                let got = out.withUnsafeMutableBytes { buf in
                    TIFFReadEncodedStrip(tif, UInt32(s), buf.baseAddress! + offset, tmsize_t(buf.count - offset))
                }
                guard got > 0 else { return nil }
                offset += Int(got)
            }
        }
        v.pixels = out
        return v
    }
}
