import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Bad input gets one line naming the file and the reason, and never leaves an output behind.
@Suite("Errors")
struct ErrorHandlingTests {
    func develop(_ input: String, in dir: String) -> (DevelopFailure?, String) {
        let out = dir + "/" + URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent + ".jpg"
        do { _ = try FileDeveloper.develop(input: input, output: out, recipe: DevelopRecipe(), export: ExportOptions()); return (nil, out) }
        catch { return (error, out) }
    }

    func leftovers(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".jpg") || $0.contains(".tmp-") }
    }

    @Test func missingFile() {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let (e, _) = develop(dir + "/nope.dng", in: dir)
        #expect(e?.category == "not-found")
        #expect(e?.description == "\(dir)/nope.dng: no such file")
        #expect(leftovers(dir).isEmpty)
    }

    @Test func notARaw() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let path = dir + "/notes.dng"
        try Data("hello, this is text, not a raw file\n".utf8).write(to: URL(fileURLWithPath: path))
        let (e, _) = develop(path, in: dir)
        #expect(e?.category == "not-raw")
        let d = try #require(e?.description)
        #expect(d.hasPrefix(path + ": ") && !d.contains("\n"))
        #expect(leftovers(dir).isEmpty)
    }

    /// Truncated copies of a valid DNG at many lengths: each fails (or, if the cut only removed
    /// padding, succeeds), never crashes, never leaves an output.
    @Test func truncatedDNG() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try TestSupport.writeChart(SyntheticSamples.all[0], in: dir))))
        for fraction in [0.0005, 0.01, 0.1, 0.5, 0.9, 0.999] {
            let path = dir + "/cut-\(fraction).dng"
            try Data(full.prefix(Int(Double(full.count) * fraction))).write(to: URL(fileURLWithPath: path))
            let (e, out) = develop(path, in: dir)
            let error = try #require(e, "truncated at \(fraction) must fail")
            #expect(["truncated", "corrupt", "not-raw"].contains(error.category), "\(error)")
            #expect(error.description.hasPrefix(path + ": "))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(leftovers(dir).isEmpty)
    }

    /// An existing output is never replaced without --overwrite, and is replaced atomically with it.
    @Test func existingOutput() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let input = try TestSupport.writeChart(SyntheticSamples.all[0], in: dir)
        let out = dir + "/existing.jpg"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: out))
        #expect(throws: DevelopFailure.self) {
            _ = try FileDeveloper.develop(input: input, output: out, recipe: DevelopRecipe(), export: ExportOptions())
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("keep me".utf8))
        var export = ExportOptions(); export.overwrite = true
        _ = try FileDeveloper.develop(input: input, output: out, recipe: DevelopRecipe(), export: export)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(bytes.prefix(2) == [0xFF, 0xD8])
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).allSatisfy { !$0.contains(".tmp-") })
    }

    /// The GoPro VC-5 DNG is reported as unsupported, naming the compression.
    @Test func vc5IsUnsupported() throws {
        guard let gpr = TestSupport.files(in: "dng").first(where: { $0.pathExtension.lowercased() == "gpr" }) else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let (e, out) = develop(gpr.path, in: dir)
        #expect(e?.category == "unsupported")
        #expect(e?.description.contains("VC-5") == true)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Every file in ../shared/samples/corrupt fails with a one-line error naming it; none crashes.
    @Test func corruptCorpus() throws {
        let files = TestSupport.files(in: "corrupt")
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        for f in files {
            let (e, out) = develop(f.path, in: dir)
            if let e {
                #expect(e.description.hasPrefix(f.path + ": ") && !e.description.contains("\n"), "\(e)")
            }
            try? FileManager.default.removeItem(atPath: out)
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).allSatisfy { !$0.contains(".tmp-") })
    }
}

/// Deterministic mutations of a valid DNG through the whole decode → develop path (our TIFF
/// reader, LibRaw, the plan, the renderer): every case either develops or fails with a one-line
/// error naming the file; none traps. (A crash here fails the whole test run.)
@Suite("Hostile DNGs")
struct HostileDNGTests {
    @Test func mutatedDNGsNeverCrash() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let valid = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try TestSupport.writeChart(SyntheticSamples.all[2], in: dir))))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(truncatingIfNeeded: state >> 33) }
        var developed = 0, failed = 0
        for i in 0..<60 {
            var b = valid
            switch i % 4 {
            case 0: for _ in 0..<(1 + next() % 12) { b[next() % 2048] = UInt8(next() & 0xFF) }          // header bytes
            case 1: for _ in 0..<(1 + next() % 40) { b[next() % b.count] = UInt8(next() & 0xFF) }       // anywhere
            case 2: b = Array(b.prefix(next() % b.count))                                                 // truncation
            default: let p = 8 + next() % 1500; for k in 0..<4 { b[p + k] = k < 2 ? 0xFF : UInt8(next() & 0xFF) }  // huge values
            }
            let path = dir + "/m\(i).dng"
            try Data(b).write(to: URL(fileURLWithPath: path))
            var recipe = DevelopRecipe(); recipe.thumbnailSize = 0
            do {
                _ = try FileDeveloper.develop(input: path, output: dir + "/m\(i).jpg", recipe: recipe, export: ExportOptions())
                developed += 1
            } catch {
                failed += 1
                #expect(error.description.hasPrefix(path + ": ") && !error.description.contains("\n"), "\(error)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/m\(i).jpg"))
            }
        }
        #expect(developed + failed == 60)
        #expect(failed > 0)
    }
}

extension HostileDNGTests {
    /// A RAW whose pixel data is missing (the exiftool Panasonic stub: 12 KB for a 10 MP sensor,
    /// which LibRaw would "decode" to zeros) fails as truncated instead of producing a black image.
    @Test func stubWithoutPixelDataIsTruncated() throws {
        guard let stub = TestSupport.files(in: "corrupt").first(where: { $0.lastPathComponent == "exiftool_stub_Panasonic.rw2" }) else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        #expect(throws: DevelopFailure.self) {
            _ = try FileDeveloper.develop(input: stub.path, output: dir + "/p.jpg", recipe: DevelopRecipe(), export: ExportOptions())
        }
        do { _ = try RawDecoder.decode(path: stub.path); Issue.record("a stub without pixel data decoded") } catch {
            guard case .truncated = error else { Issue.record("expected truncated, got \(error)"); return }
        }
    }
}
