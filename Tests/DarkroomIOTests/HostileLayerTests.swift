import DarkroomCore
@testable import DarkroomFormats
import DarkroomIO
import Foundation
import Glibc
import Testing

/// The parsing layer's defences of issue 20 that need no crafted DNG: the SIGBUS guard on file
/// maps, the decode budget, and refusing non-regular files without opening them.
@Suite("Hostile layer")
struct HostileLayerTests {
    static func tempFile(_ bytes: Int) throws -> String {
        let path = NSTemporaryDirectory() + "darkroom-map-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0xAB, count: bytes)))
        return path
    }

    /// A mapped file truncated by "another process" (here: ftruncate) reads as zeros past its
    /// new end instead of killing the process with SIGBUS, and says it was truncated.
    @Test func truncatedMapReadsZerosAndIsFlagged() throws {
        let size = 1 << 20
        let path = try Self.tempFile(size)
        defer { unlink(path) }
        let file = try MappedFile(path: path)
        let before = file.truncatedWhileMapped
        #expect(!before)
        #expect(file.bytes[size - 1] == 0xAB)   // page in the tail before truncating
        #expect(truncate(path, 4096) == 0)
        var sum = 0
        for i in stride(from: 0, to: size, by: 4096) { sum += Int(file.bytes[i]) }
        #expect(file.bytes[0] == 0xAB)           // the part still in the file is intact
        #expect(sum == 0xAB)                      // every later page reads as zero
        let after = file.truncatedWhileMapped
        #expect(after)
    }

    /// Two maps: damage to one does not mark the other.
    @Test func guardIsPerMap() throws {
        let a = try Self.tempFile(64 << 10), b = try Self.tempFile(64 << 10)
        defer { unlink(a); unlink(b) }
        let ma = try MappedFile(path: a), mb = try MappedFile(path: b)
        #expect(truncate(a, 0) == 0)
        // The reads must happen (an unused load is optimised away in release builds).
        #expect(ma.bytes[32 << 10] == 0)
        #expect(mb.bytes[32 << 10] == 0xAB)
        let damagedA = ma.truncatedWhileMapped, damagedB = mb.truncatedWhileMapped
        #expect(damagedA)
        #expect(!damagedB)
    }

    /// The numbers of issue 20's reproducers, and the real files' ratios, against the budget.
    @Test func budgetRefusesImplausibleSizes() {
        // 108 KB lossy JPEG claiming 16000 × 16000 × 3.
        let lossy = DecodeBudget(fileSize: 108_000, compression: 34892)
        #expect(throws: DecodeError.self) { try lossy.check(width: 16000, height: 16000, samplesPerPixel: 3, path: "x") }
        // Overflowing products are refused, never trapped on.
        let any = DecodeBudget(fileSize: 1 << 30, compression: 1)
        #expect(throws: DecodeError.self) { try any.check(width: Int(UInt32.max), height: Int(UInt32.max), samplesPerPixel: 4, path: "x") }
        #expect(throws: DecodeError.self) { try any.check(width: Int.max, height: 2, samplesPerPixel: 1, path: "x") }
        // A real 1 MP lossy DNG (87 KB) and a 24 MP uncompressed 14-bit DNG (48 MB) pass.
        #expect(throws: Never.self) { try DecodeBudget(fileSize: 87_116, compression: 34892).check(width: 1024, height: 1024, samplesPerPixel: 1, path: "x") }
        #expect(throws: Never.self) { try DecodeBudget(fileSize: 48_001_318, compression: 1).check(width: 6000, height: 4000, samplesPerPixel: 1, path: "x") }
        // --memory bounds the decoded size whatever the file size.
        let tight = DecodeBudget(fileSize: 48_001_318, compression: 1, memoryLimit: 16 << 20)
        #expect(throws: DecodeError.self) { try tight.check(width: 6000, height: 4000, samplesPerPixel: 1, path: "x") }
        #expect(tight.maxSamples == 8 << 20)
        do { try lossy.check(width: 16000, height: 16000, samplesPerPixel: 3, path: "f.dng") } catch {
            #expect(error.description.hasPrefix("f.dng: file is truncated"), "\(error)")
        }
        do { try tight.check(width: 6000, height: 4000, samplesPerPixel: 1, path: "f.dng") } catch {
            guard case .tooLarge = error else { Issue.record("\(error)"); return }
        }
    }

    /// FIFOs and devices are refused from their `stat`: no open (a FIFO would block it), no read.
    @Test func nonRegularInputsAreRefusedWithoutOpening() throws {
        let fifo = NSTemporaryDirectory() + "darkroom-fifo-\(UUID().uuidString)"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        for path in [fifo, "/dev/zero", "/dev/urandom", NSTemporaryDirectory()] {
            do {
                _ = try RawDecoder.decode(path: path)
                Issue.record("\(path) was accepted")
            } catch {
                guard case .unreadable(let p, let reason) = error else { Issue.record("\(path): \(error)"); continue }
                #expect(p == path)
                #expect(reason.contains("not a regular file") || reason.contains("directory"), "\(reason)")
            }
        }
    }
}
