import DarkroomBatch
import DarkroomCore
import DarkroomIO
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
        let dir = BatchTestSupport.tempDirectory()
        defer { BatchTestSupport.cleanup(dir) }
        let big = (0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        FileManager.default.createFile(atPath: dir + "/f", contents: Data(big))
        #expect(SHA256.hexOfFile(dir + "/f") == SHA256.hex(big))
        #expect(SHA256.hexOfFile(dir + "/missing") == nil)
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
        let dir = BatchTestSupport.tempDirectory()
        defer { BatchTestSupport.cleanup(dir) }
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
        let dir = BatchTestSupport.tempDirectory()
        defer { BatchTestSupport.cleanup(dir) }
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
        let dir = BatchTestSupport.tempDirectory()
        defer { BatchTestSupport.cleanup(dir) }
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
    /// Chunking never changes the hash; any changed, added or removed byte does.
    @Test func chunkIndependentAndSensitive() {
        var rng = SystemRandomNumberGenerator()
        var data = (0..<10_007).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let whole = ContentHash.hex(data)
        #expect(whole.count == 32)
        for chunk in [1, 7, 15, 16, 17, 1000, 4096] {
            var h = ContentHash()
            var i = 0
            while i < data.count {
                let end = min(i + chunk, data.count)
                data[i..<end].withUnsafeBytes { h.update($0) }
                i = end
            }
            #expect(h.finalize() == whole, "chunk \(chunk)")
        }
        var seen: Set<String> = [whole]
        for i in [0, 1, 15, 16, 5000, 10_006] {
            var d = data; d[i] ^= 1
            #expect(seen.insert(ContentHash.hex(d)).inserted, "flip at \(i)")
        }
        #expect(seen.insert(ContentHash.hex(Array(data.dropLast()))).inserted)
        #expect(seen.insert(ContentHash.hex(data + [0])).inserted)
        #expect(ContentHash.hex([]) != ContentHash.hex([0]))
        data[0] = data[0]
    }
}
