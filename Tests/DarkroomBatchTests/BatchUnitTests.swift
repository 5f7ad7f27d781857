import DarkroomBatch
import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

@Suite("Batch units")
struct BatchUnitTests {
    @Test func sha256KnownVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Streaming in odd-sized pieces gives the same digest as one call.
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var s = SHA256()
        var i = 0
        for n in [1, 63, 64, 65, 200, 607] { s.update(Array(bytes[i..<i + n])); i += n }
        #expect(s.finalize().map { String(format: "%02x", $0) }.joined() == SHA256.hex(bytes))
        // A file hashes like its bytes (read in 1 MiB chunks; 1.5 MiB here).
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let big = (0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        FileManager.default.createFile(atPath: dir + "/f", contents: Data(big))
        #expect(SHA256.hexOfFile(dir + "/f") == SHA256.hex(big))
        #expect(SHA256.hexOfFile(dir + "/missing") == nil)
        // FIPS 180-4 / NIST CAVP: the 896-bit message and one million "a".
        #expect(SHA256.hex(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// File digests equal coreutils' `sha256sum` (an independent implementation) for a few
    /// sizes, sample DNGs included when `../shared/samples` is present.
    @Test func sha256MatchesSha256sum() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        var paths: [String] = []
        for size in [0, 55, 56, 64, 1000, (1 << 20) + 7] {
            let path = dir + "/f\(size)"
            FileManager.default.createFile(atPath: path, contents: Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }))
            paths.append(path)
        }
        paths += TestSupport.files(in: "dng").prefix(2).map(\.path)
        for path in paths {
            let reference = try TestSupport.runTool("/usr/bin/sha256sum", [path]).stdout.split(separator: " ").first.map(String.init)
            #expect(SHA256.hexOfFile(path) == reference, "\(path)")
        }
    }

    /// K/N shards of 500 paths: disjoint, union = all, and each path's shard does not depend on
    /// the other paths or their order.
    @Test(arguments: [1, 2, 3, 7])
    func shardsPartition(n: Int) throws {
        let paths = (0..<500).map { "roll\($0 % 13)/IMG_\(String(format: "%04d", $0)).CR2" }
        var owner: [String: Int] = [:]
        for k in 1...n {
            let shard = try Shard(index: k, count: n)
            for p in paths where shard.contains(relativePath: p) {
                #expect(owner[p] == nil, "\(p) in shards \(owner[p] ?? 0) and \(k)")
                owner[p] = k
            }
        }
        #expect(owner.count == paths.count)
        if n > 1 { #expect(Set(owner.values).count == n, "every shard gets work") }
        let first = try Shard(index: 1, count: n)
        let reordered = paths.reversed().filter { first.contains(relativePath: $0) }
        #expect(Set(reordered) == Set(owner.filter { $0.value == 1 }.map(\.key)))
    }

    @Test func shardParsing() throws {
        #expect(try Shard(parsing: "3/8") == Shard(index: 3, count: 8))
        for bad in ["0/4", "5/4", "1", "a/b", "1/0"] {
            #expect(throws: BatchError.self) { try Shard(parsing: bad) }
        }
    }

    @Test func namesNeverEscapeAndNeverCollide() throws {
        let inputs = [
            BatchInput(path: "a/IMG_1.dng", relativePath: "IMG_1.dng", explicit: true),
            BatchInput(path: "b/IMG_1.dng", relativePath: "IMG_1.dng", explicit: true),
            BatchInput(path: "r/x/IMG_1.DNG", relativePath: "x/IMG_1.DNG", explicit: false),
            BatchInput(path: "r/../evil.dng", relativePath: "../../etc/evil.dng", explicit: false),
        ]
        let def = try OutputNamer(template: OutputNamer.defaultTemplate)
        #expect(def.names(for: inputs) { _ in nil } == ["IMG_1", "IMG_1-2", "x/IMG_1", "__/__/etc/evil"])
        let hostile = try OutputNamer(template: "/../../{stem}/../{ext}_{seq}")
        let names = hostile.names(for: inputs) { _ in nil }
        #expect(names == ["__/__/IMG_1/__/dng_0001", "__/__/IMG_1/__/dng_0002", "__/__/IMG_1/__/dng_0003", "__/__/evil/__/dng_0004"])
        for n in names { #expect(!n.hasPrefix("/") && !n.split(separator: "/").contains("..")) }
        var exif = ExifInfo()
        exif.make = "Canon"; exif.model = "Canon EOS/6D"; exif.dateTimeOriginal = "2024:05:17 10:11:12"
        let cam = try OutputNamer(template: "{camera}/{date}_{time}_{stem}")
        #expect(cam.names(for: [inputs[0]]) { _ in exif } == ["Canon EOS_6D/2024-05-17_101112_IMG_1"])
        #expect(throws: BatchError.self) { try OutputNamer(template: "{nope}") }
        #expect(throws: BatchError.self) { try OutputNamer(template: "{stem") }
    }

    /// Files, directories (flat and recursive) and globs; hidden files and OUTDIR are never
    /// picked up; relative paths are taken from each input's root.
    @Test func inputExpansion() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let fm = FileManager.default
        for p in ["a/x.dng", "a/.hidden.dng", "a/sub/y.dng", "a/out/z.jpg", "b/x.dng", "b/w.nef"] {
            try fm.createDirectory(atPath: dir + "/" + (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            fm.createFile(atPath: dir + "/" + p, contents: Data([1, 2, 3]))
        }
        let flat = try InputExpander.expand([dir + "/a"], recursive: false)
        #expect(flat.map(\.relativePath) == ["x.dng"])
        let deep = try InputExpander.expand([dir + "/a"], recursive: true, excluding: dir + "/a/out")
        #expect(deep.map(\.relativePath) == ["sub/y.dng", "x.dng"])
        #expect(deep.allSatisfy { !$0.explicit })
        let globbed = try InputExpander.expand([dir + "/*/x.dng", dir + "/b/*.nef"], recursive: false)
        #expect(globbed.map(\.relativePath) == ["a/x.dng", "b/x.dng", "w.nef"])
        let named = try InputExpander.expand([dir + "/b/x.dng", dir + "/b/x.dng", dir + "/missing.dng"], recursive: false)
        #expect(named.map(\.relativePath) == ["x.dng", "missing.dng"], "duplicates removed, missing kept to be reported")
        #expect(named.allSatisfy { $0.explicit })
        #expect(throws: BatchError.self) { _ = try InputExpander.expand([dir + "/*.cr3"], recursive: false) }
    }

    @Test func memorySizesAndEstimate() {
        #expect(MemoryGate.parseSize("4G") == 4 << 30)
        #expect(MemoryGate.parseSize("512M") == 512 << 20)
        #expect(MemoryGate.parseSize("1.5GiB") == 3 << 29)
        #expect(MemoryGate.parseSize("1048576") == 1_048_576)
        #expect(MemoryGate.parseSize("lots") == nil)
        // 4000x3000, 8-bit, 20 MB file, 256 tiles, 1 thread: 20e6 + 12e6·(4 + 6) + 288²·64.
        #expect(MemoryGate.estimate(width: 4000, height: 3000, fileSize: 20_000_000, sixteenBit: false, tileSize: 256, threads: 1)
                == 20_000_000 + 120_000_000 + 288 * 288 * 64)
    }

    /// A request that does not fit waits until enough is released; a request larger than the
    /// whole budget runs alone.
    @Test func memoryGateAdmission() {
        let gate = MemoryGate(budget: 100)
        #expect(gate.acquire(60))
        var cancelled = false
        #expect(!gate.acquire(60, cancelled: { defer { cancelled = true }; return cancelled }))
        gate.release(60)
        #expect(gate.acquire(500))   // alone: admitted despite the budget
        gate.release(500)
    }

    @Test func recipeFileParsesAndOverlays() throws {
        let yaml = """
        color-space: p3
        exposure: 0.5
        wb: 5500,+10
        dither: false
        format: [jpeg, tiff]
        quality: 95
        name: "{stem}"
        mattes: [gamut, skin]
        matte: {sky: sky.png}
        """
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        try yaml.write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        let file = try BatchRecipe.load(path: dir + "/r.yaml")
        var flags = BatchRecipe()
        try flags.set("exposure", .text("-1"))
        try flags.set("format", .text("heif"))
        let merged = file.overlaid(by: flags)
        let (recipe, export, formats) = try merged.resolved()
        #expect(recipe.colorSpace == .p3)
        #expect(recipe.exposureStops == -1)
        #expect(recipe.whiteBalance == .temperature(kelvin: 5500, tint: 10))
        #expect(recipe.dither == false)
        #expect(formats == [.heif])
        #expect(export.quality == 95)
        #expect(export.computedMattes == [.gamut, .skin])
        #expect(export.suppliedMattes == [SuppliedMatteSpec(kind: .sky, path: "sky.png")])
        // Printed YAML reads back to the same recipe.
        let printed = merged.yaml()
        try printed.write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        #expect(try BatchRecipe.load(path: dir + "/p.yaml") == merged)
        // Tile size and threads never change the recipe hash; exposure does.
        var fast = merged
        try fast.set("tile-size", .text("64")); try fast.set("threads", .text("7"))
        #expect(fast.hash(decode: .init()) == merged.hash(decode: .init()))
        var brighter = merged
        try brighter.set("exposure", .text("1"))
        #expect(brighter.hash(decode: .init()) != merged.hash(decode: .init()))
    }

    @Test func recipeFileRejectsUnknownKeysAndBadValues() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        for (text, needle) in [("colour-space: p3", "unknown key 'colour-space'"), ("format: png", "png"),
                               ("bit-depth: 12", "bit-depth"), ("wb: hot", "wb")] {
            try text.write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
            do {
                _ = try BatchRecipe.load(path: dir + "/r.yaml").resolved()
                Issue.record("\(text) accepted")
            } catch {
                #expect(error.description.contains(needle), "\(error.description)")
            }
        }
    }

    @Test func whiteBalanceTextRoundTrips() throws {
        for text in ["as-shot", "5500", "5500,+10", "3200,-5", "xy:0.3127,0.329", "auto", "tungsten", "rect:1,2,3,4", "gains:2.0,1.0,1.5"] {
            let request = try WhiteBalanceRequest.parse(text)
            #expect(request.text == text)
            var recipe = DevelopRecipe()
            recipe.setWhiteBalance(request)
            #expect(recipe.whiteBalanceText == text)
        }
    }
}

@Suite("Content hash")
struct ContentHashTests {
    /// The 100,003-byte pattern whose legacy hash was recorded before the switch to XXH3-128.
    static let pattern: [UInt8] = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }

    /// Runs `xxhsum -H2 FILE` (Debian's `xxhash`, the reference implementation's CLI): the
    /// XXH128 digest as 32 hex digits; nil when xxhsum is not installed.
    static func xxhsum(_ path: String) throws -> String? {
        guard let xxhsum = ["/usr/bin/xxhsum", "/usr/local/bin/xxhsum"].first(where: FileManager.default.isExecutableFile)
        else { return nil }
        let r = try TestSupport.runTool(xxhsum, ["-H2", path])
        return r.stdout.split(separator: " ").first.map(String.init)
    }

    /// Our hash of a file and of its bytes equals xxhsum's XXH128, for sizes around XXH3's
    /// internal boundaries (0, 1, 16, 17, 128, 129, 240, 241 bytes, one stripe block) and larger
    /// than the 1 MiB read chunk.
    @Test(arguments: [0, 1, 3, 16, 17, 128, 129, 240, 241, 1024, 100_003, (1 << 20) + 12_345, 3 << 20])
    func matchesXxhsum(size: Int) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) }
        let path = dir + "/data.bin"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let hash = try #require(ContentHash.hexOfFile(path))
        #expect(hash == ContentHash.hex(bytes))
        #expect(hash.hasPrefix("xxh3-128:") && hash.count == 9 + 32)
        #expect(!ContentHash.isLegacy(hash))
        if let reference = try Self.xxhsum(path) { #expect(hash == "xxh3-128:" + reference) }
    }

    @Test func knownVectors() {
        // xxhsum -H2 of the empty file and of the 100,003-byte pattern (xxHash 0.8.1).
        #expect(ContentHash.hex([]) == "xxh3-128:99aa06d3014798d86001c324468d497f")
        #expect(ContentHash.hex(Self.pattern) == "xxh3-128:871bbbf396a1614c6ce3432f8c8e8b62")
        #expect(ContentHash.hexOfFile("/nonexistent/file") == nil)
    }

    /// Streaming in any chunking gives the one-call digest; any changed, added or removed byte changes it.
    @Test func chunkIndependentAndSensitive() throws {
        var data = Self.pattern.prefix(10_007).map { $0 }
        let whole = ContentHash.hex(data)
        for chunk in [1, 7, 15, 16, 17, 1000, 4096] {
            guard var h = XXH3Hasher() else { Issue.record("no XXH3 state"); return }
            var i = 0
            while i < data.count {
                let end = min(i + chunk, data.count)
                data[i..<end].withUnsafeBytes { h.update($0) }
                i = end
            }
            #expect("xxh3-128:" + h.digest().map { String(format: "%02x", $0) }.joined() == whole, "chunk \(chunk)")
        }
        var seen: Set<String> = [whole]
        for i in [0, 1, 15, 16, 5000, 10_006] {
            var d = data; d[i] ^= 1
            #expect(seen.insert(ContentHash.hex(d)).inserted, "flip at \(i)")
        }
        #expect(seen.insert(ContentHash.hex(Array(data.dropLast()))).inserted)
        #expect(seen.insert(ContentHash.hex(data + [0])).inserted)
        data[0] ^= 0
    }

    /// The legacy hash still gives the values the previous version recorded (computed by the
    /// code at commit 4da16c0, before the switch), and is recognised by its bare 32-digit form.
    @Test func legacyHashAsRecorded() {
        #expect(LegacyContentHash.hex(Self.pattern) == "4cbe2e92cec4f9975044c64bdb0dbe90")
        #expect(LegacyContentHash.hex([]) == "97d006e1fc7b6ec7bd57797bcb893970")
        #expect(LegacyContentHash.hex(Array("darkroom".utf8)) == "61af25c2580bed76cfe62b4a26f2a5c3")
        #expect(ContentHash.isLegacy("4cbe2e92cec4f9975044c64bdb0dbe90"))
        #expect(!ContentHash.isLegacy("4CBE2E92CEC4F9975044C64BDB0DBE90") && !ContentHash.isLegacy("abc"))
    }

    enum OldRecord { case sameStat, touched, changedContent }

    /// A manifest written by the previous version (its records hold the legacy hash) is not
    /// taken as changed inputs: with the same size+mtime, or a different mtime but the same
    /// content, the output is up to date and the record is rewritten with the XXH3-128 hash; a
    /// record whose legacy hash does not match the content is not accepted.
    @Test(arguments: [OldRecord.sameStat, .touched, .changedContent])
    func oldManifestIsRecognised(_ kind: OldRecord) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try TestSupport.writeCharts(in: dir + "/in", count: 1)[0]
        let out = dir + "/out"
        // In-process runner: its workers are the built `darkroom` (not this test bundle).
        var configuration = BatchConfiguration(inputs: [input], outputDirectory: out)
        configuration.workerExecutable = try #require(TestSupport.binary)
        let first = try BatchRunner(configuration: configuration).run()
        #expect(first.files.map(\.status) == [.developed])
        let manifestPath = out + "/.darkroom-manifest.json"
        var manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any])
        var outputs = try #require(manifest["outputs"] as? [String: [String: Any]])
        #expect(outputs.count == 1)
        let key = try #require(outputs.keys.first)
        #expect(outputs[key]?["inputHash"] as? String == ContentHash.hexOfFile(input))
        // The record as the previous version wrote it: the same fields, the legacy hash.
        let legacy = try #require(LegacyContentHash.hexOfFile(input))
        outputs[key]?["inputHash"] = kind == .changedContent ? LegacyContentHash.hex(Array("other content".utf8)) : legacy
        let modified = outputs[key]?["inputModified"] as? Double ?? 0
        if kind != .sameStat { outputs[key]?["inputModified"] = modified - 1000 }
        manifest["outputs"] = outputs
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: manifestPath))

        let second = try BatchRunner(configuration: configuration).run()
        let after = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any])
        let record = try #require((after["outputs"] as? [String: [String: Any]])?[key])
        if kind == .changedContent {
            #expect(second.files.map(\.status) == [.failed])
            #expect(second.files.first?.category == .exists)
        } else {
            #expect(second.files.map(\.status) == [.upToDate])
            #expect(record["inputHash"] as? String == ContentHash.hexOfFile(input))
        }
    }
}
