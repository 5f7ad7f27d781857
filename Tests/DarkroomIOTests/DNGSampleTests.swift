import Testing
import Foundation
import DarkroomCore
@testable import DarkroomIO

/// Real DNG files from `../shared/samples/dng` (skipped when absent): every file either reads
/// or throws a one-line error naming it.
@Suite struct DNGSampleTests {
    static let samplesDirectory: String = {
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/samples/dng").path
    }()

    static var sampleFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samplesDirectory)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".dng") || $0.lowercased().hasSuffix(".gpr") }.sorted()
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
