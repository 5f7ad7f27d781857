import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// Hostile bytes: truncation, random byte flips, real corrupt files. Nothing may trap; every
/// failure is a TIFFError whose one-line description names the file.
@Suite struct DNGHostileTests {
    /// A small valid DNG from our writer (16×12 CFA with a preview, all metadata).
    static let smallDNG: [UInt8] = {
        var image = DNGTestSupport.image(cfa: .rggb, bits: 14, width: 16, height: 12)
        image.metadata.defaultCrop = PixelRect(x: 2, y: 2, width: 10, height: 6)
        let path = DNGTestSupport.tempPath("hostile-seed.dng")
        defer { unlink(path) }
        let preview = DNGPreview(width: 4, height: 3, rgb: [UInt8](repeating: 128, count: 36))
        do {
            try DNGWriter.write(image, to: path, options: DNGWriteOptions(preview: preview))
            return try TIFFFile.readBytes(path: path)
        } catch { return [] }
    }()

    static func expectClean(_ error: TIFFError, _ path: String) {
        #expect(error.description.hasPrefix(path + ": "))
        #expect(!error.description.contains("\n"))
    }

    @Test func seedIsValid() throws {
        #expect(!Self.smallDNG.isEmpty)
        let md = try DNGMetadataReader.read(Self.smallDNG, path: "seed.dng")
        #expect(md.cfa == .rggb && md.warnings.isEmpty && md.previews.count == 1)
    }

    @Test func zeroLength() {
        #expect(throws: TIFFError.file(path: "empty.dng", .truncated(at: 0, needed: 8))) {
            try DNGMetadataReader.read([], path: "empty.dng")
        }
    }

    /// Cut at every length: the file's structure or image data is then incomplete. Our
    /// writer's layout (pixels, then IFDs and their values at the end) means every cut throws.
    @Test func truncatedAtEveryOffsetThrows() {
        let bytes = Self.smallDNG
        var throwsCount = 0
        for n in 0..<bytes.count {
            do {
                _ = try DNGMetadataReader.read(Array(bytes[0..<n]), path: "cut.dng")
            } catch {
                Self.expectClean(error, "cut.dng")
                throwsCount += 1
            }
        }
        #expect(throwsCount == bytes.count)
    }

    /// 2000 deterministic mutations (1–4 random bytes each, xorshift-seeded): read must
    /// return or throw, never trap.
    @Test func byteFlipFuzz() {
        let seed = Self.smallDNG
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        var ok = 0, failed = 0
        for _ in 0..<2000 {
            var b = seed
            for _ in 0...(next() % 4) {
                // Bias towards the structure (header and IFDs at the end) where flips matter.
                let i = next() % 2 == 0 ? Int(next() % UInt64(b.count)) : max(0, b.count - 1 - Int(next() % 1200))
                b[i] = UInt8(truncatingIfNeeded: next())
            }
            do {
                let md = try DNGMetadataReader.read(b, path: "fuzz.dng")
                _ = String(describing: md)   // touch every field
                ok += 1
            } catch {
                Self.expectClean(error, "fuzz.dng")
                failed += 1
            }
        }
        #expect(ok + failed == 2000)
        print("fuzz: \(ok) read, \(failed) rejected")
    }

    /// Files in ../shared/samples/corrupt that look like TIFF (skipped when absent).
    @Test func corruptSamplesNeverTrap() throws {
        let dir = TestSupport.sharedSamplesPath.appendingPathComponent("corrupt").path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names.sorted() {
            let path = dir + "/" + name
            do {
                let md = try DNGMetadataReader.read(contentsOf: path)
                print("CORRUPT \(name): read \(md.fileFormat) \(md.sensorWidth)x\(md.sensorHeight) warnings=\(md.warnings.count)")
            } catch {
                Self.expectClean(error, path)
                print("CORRUPT \(name): \(error)")
            }
        }
    }
}
