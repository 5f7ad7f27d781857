import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// Real DNG files from `../shared/samples/dng` (skipped when absent): every file either reads
/// or throws a one-line error naming it.
@Suite struct DNGSampleTests {
    static let samplesDirectory: String = TestSupport.sharedSamplesPath.appendingPathComponent("dng").path

    static var sampleFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samplesDirectory)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".dng") || $0.lowercased().hasSuffix(".gpr") }.sorted()
    }

    /// Known facts of some samples (checked against exiftool): size, samples, CFA as seen from
    /// the active area, black, white, default crop.
    static let expected: [String: (w: Int, h: Int, spp: Int, cfa: CFAPattern?, black: [Double], white: [Double], crop: PixelRect?)] = [
        "gopro_hero6_GOPR0024.gpr": (4000, 3000, 1, .rggb, [0, 0, 0, 0], [16383], PixelRect(x: 0, y: 0, width: 4000, height: 3000)),
        "imageio_Blackmagic.dng": (4128, 2176, 1, .rggb, [512], [65535], PixelRect(x: 16, y: 8, width: 4096, height: 2160)),
        "rpi_imx296_pidng_image_0.dng": (1456, 1088, 1, .bggr, [60, 60, 60, 60], [1023], nil),
        "rpi_pidng_640x480_test.dng": (640, 480, 1, .gbrg, [0], [1023], nil),
        "skia_sample_1mp.dng": (600, 338, 3, nil, [0, 0, 0], [255, 255, 255], PixelRect(x: 0, y: 0, width: 600, height: 338)),
        "adobesdk_14_hdr_sdr_profiles.dng": (1000, 100, 3, nil, [0], [1, 1, 1], PixelRect(x: 0, y: 0, width: 1000, height: 100)),
    ]

    @Test func knownSampleValues() throws {
        for (name, e) in Self.expected {
            let path = Self.samplesDirectory + "/" + name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let md = try DNGMetadataReader.read(contentsOf: path)
            #expect(md.sensorWidth == e.w && md.sensorHeight == e.h && md.samplesPerPixel == e.spp, "\(name)")
            #expect(md.cfa == e.cfa, "\(name)")
            #expect(md.blackLevel == e.black && md.whiteLevel == e.white, "\(name)")
            #expect(md.defaultCrop == e.crop, "\(name)")
            #expect(md.warnings.isEmpty, "\(name)")
        }
    }

    @Test(arguments: sampleFiles)
    func readsOrThrowsClearly(_ name: String) throws {
        let path = Self.samplesDirectory + "/" + name
        do {
            let md = try DNGMetadataReader.read(contentsOf: path)
            print("SAMPLE \(name): OK \(md.fileFormat) \(md.dngVersion ?? []) \(md.sensorWidth)x\(md.sensorHeight) spp=\(md.samplesPerPixel) bits=\(md.bitsPerSample) comp=\(md.compression ?? -1) cfa=\(md.cfa?.description ?? "-") active=\(md.activeArea?.description ?? "-") crop=\(md.defaultCrop?.description ?? "-") black=\(md.blackLevel.prefix(4)) white=\(md.whiteLevel) cm1=\(md.profile?.colorMatrix1 != nil) fm1=\(md.profile?.forwardMatrix1 != nil) neutral=\(md.asShotNeutral ?? []) model=\(md.uniqueCameraModel ?? "-") make=\(md.exif.make ?? "-") previews=\(md.previews.count) op=\(md.opcodeList1?.count ?? 0)/\(md.opcodeList2?.count ?? 0)/\(md.opcodeList3?.count ?? 0) extra=\(md.extraProfiles.count) warnings=\(md.warnings)")
            #expect(md.sensorWidth > 0 && md.sensorHeight > 0)
            #expect(md.whiteLevel.count == md.samplesPerPixel)
        } catch {
            let text = error.description
            print("SAMPLE \(name): THROWS \(text)")
            #expect(text.hasPrefix(path))
            #expect(!text.contains("\n"))
        }
    }
}
