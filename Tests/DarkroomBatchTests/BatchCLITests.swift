import DarkroomBatch
import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// End-to-end: the built `darkroom` binary run as a subprocess.
@Suite("Batch CLI", .serialized)
struct BatchCLITests {
    typealias S = TestSupport

    /// Good DNGs, corrupt files, a text file and a duplicate name in a sub-folder: every good
    /// file develops (the duplicate keeps its folder), each bad one is in the report with a
    /// reason, exit 1; the second run develops nothing and exits 0.
    @Test func mixedFolderThenResume() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let good = try S.writeCharts(in: input)
        try S.writeCharts(in: input + "/sub", count: 1)        // same stem as good[0]
        try "These are my notes, not an image.\n".write(toFile: input + "/notes.txt", atomically: true, encoding: .utf8)
        let corrupt = S.sharedSamples("corrupt").map { c in
            ["filetype_fixture.orf", "exiv2_IMG_1361.dng"].map { c.appendingPathComponent($0).path }
        } ?? []
        for c in corrupt { try FileManager.default.copyItem(atPath: c, toPath: input + "/" + (c as NSString).lastPathComponent) }

        let r1 = try S.run(["develop", input, "-r", "-o", out, "--report", dir + "/r1.json", "--jobs", "2", "--log", "json"])
        let rep1 = try S.report(dir + "/r1.json")
        let files = S.files(rep1)
        func status(_ rel: String) -> String? { files.first { $0["relativePath"] as? String == rel }?["status"] as? String }
        for g in good { #expect(status((g as NSString).lastPathComponent) == "developed") }
        #expect(status("sub/" + (good[0] as NSString).lastPathComponent) == "developed")
        #expect(status("notes.txt") == "skipped")
        let notes = files.first { $0["relativePath"] as? String == "notes.txt" }
        #expect((notes?["error"] as? String)?.contains("not a RAW") == true)
        for c in corrupt {
            let e = files.first { $0["relativePath"] as? String == (c as NSString).lastPathComponent }
            #expect(e?["status"] as? String == "failed")
            #expect(((e?["error"] as? String) ?? "").contains((c as NSString).lastPathComponent), "error names the file")
            #expect(((e?["category"] as? String) ?? "") != "")
        }
        #expect(r1.status == (corrupt.isEmpty ? 0 : 1), "stderr: \(r1.stderr)")
        // One JSON object per line on stderr (not a terminal); LibRaw's own chatter aside.
        let events = r1.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(events.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        #expect(events.contains { $0.contains("\"event\":\"summary\"") })
        let outputs = S.tree(out).filter { !$0.hasPrefix(".") }
        #expect(outputs.count == good.count + 1)
        #expect(outputs.contains("sub/" + ((good[0] as NSString).lastPathComponent as NSString).deletingPathExtension + ".jpg"))
        for o in outputs {
            let d = try OutputInspector.decodeRGB8([UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/" + o))))
            #expect(d.width == 584 && d.height == 384)
        }
        let t1 = S.totals(rep1)
        #expect(t1["developed"] as? Int == good.count + 1)
        #expect(t1["failed"] as? Int == corrupt.count)
        #expect(((t1["peakMemoryMB"] as? Double) ?? 0) > 0)
        let first = files.first { $0["status"] as? String == "developed" }
        #expect(first?["decodeMilliseconds"] != nil && first?["renderMilliseconds"] != nil && first?["encodeMilliseconds"] != nil)

        let mtimes = try outputs.map { try FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.modificationDate] as? Date }
        let r2 = try S.run(["develop", input, "-r", "-o", out, "--report", dir + "/r2.json", "--quiet"])
        // Inputs that failed before are not retried, and still make the exit status 1.
        #expect(r2.status == (corrupt.isEmpty ? 0 : 1), "stderr: \(r2.stderr)")
        let t2 = S.totals(try S.report(dir + "/r2.json"))
        #expect(t2["developed"] as? Int == 0)
        #expect(t2["failed"] as? Int == 0)
        #expect(t2["upToDate"] as? Int == good.count + 1)
        #expect(t2["previouslyFailed"] as? Int == corrupt.count)
        let mtimes2 = try outputs.map { try FileManager.default.attributesOfItem(atPath: out + "/" + $0)[.modificationDate] as? Date }
        #expect(mtimes == mtimes2, "nothing rewritten")

        // Touching an input without changing it keeps it up to date (content hash); changing the
        // recipe makes the outputs stale: one this batch made and nobody touched since (its recorded
        // size and hash) is redone, one changed by someone else needs --overwrite.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: good[1])
        // The same folder reached by another spelling of its path is also up to date.
        let r3 = try S.run(["develop", input + "/./", "-r", "-o", out, "--report", dir + "/r3.json", "--quiet"])
        #expect(r3.status == (corrupt.isEmpty ? 0 : 1))
        let t3 = S.totals(try S.report(dir + "/r3.json"))
        #expect(t3["upToDate"] as? Int == good.count + 1)
        #expect(t3["previouslyFailed"] as? Int == corrupt.count)
        let redone = out + "/" + ((good[1] as NSString).lastPathComponent as NSString).deletingPathExtension + ".jpg"
        let before = try Data(contentsOf: URL(fileURLWithPath: redone))
        let r4 = try S.run(["develop", good[1], "-o", out, "--exposure", "1", "--quiet"])
        #expect(r4.status == 0, "\(r4.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: redone)) != before, "the stale output was redone")
        try Data("edited by hand".utf8).write(to: URL(fileURLWithPath: redone))
        let r5 = try S.run(["develop", good[1], "-o", out, "--exposure", "2", "--quiet"])
        #expect(r5.status == 1)
        #expect(r5.stderr.contains("--overwrite"), "\(r5.stderr)")
        let r6 = try S.run(["develop", good[1], "-o", out, "--exposure", "2", "--overwrite", "--quiet"])
        #expect(r6.status == 0)
    }

    /// kill -9 midway through a --jobs 1 batch, rerun: every output complete and decodable,
    /// no temporary files, no duplicates.
    /// The report says, per file, what each picture-quality control resolved to (the lines of
    /// `darkroom explain`), beside the recipe that asked for them.
    @Test func reportCarriesResolvedControls() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let good = try S.writeCharts(in: dir + "/in", count: 1)
        _ = try S.run(["develop", good[0], "-o", dir + "/out", "--report", dir + "/r.json", "--sharpen", "off",
                       "--highlights", "clip", "--log", "json"])
        let file = try #require(S.files(try S.report(dir + "/r.json")).first)
        let controls = try #require(file["controls"] as? [String: String])
        let explain = try S.run(["explain", good[0], "--sharpen", "off", "--highlights", "clip"])
        #expect(controls["sharpen"] == "off")
        #expect(controls["highlights"]?.hasPrefix("clip (") == true)
        #expect(controls["lens"] == "auto → none (no lens model in the metadata)")
        for key in ["highlights", "noise-reduction", "demosaic"] {
            let value = try #require(controls[key], "\(key) missing")
            #expect(explain.stdout.contains(value), "\(key): \(value) is not what explain says")
        }
    }

    @Test func sigkillThenResume() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let inputs = try S.writeCharts(in: input, count: 10)
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = ["develop", input, "-o", out, "--jobs", "1", "--format", "jpeg,tiff", "--quiet", "--log", "json"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait (by polling, not by timing) until the first output exists, then kill -9.
        while p.isRunning && !S.tree(out).contains(where: { $0.hasSuffix(".jpg") || $0.hasSuffix(".tif") }) { usleep(2000) }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let r = try S.run(["develop", input, "-o", out, "--jobs", "1", "--format", "jpeg,tiff", "--report", dir + "/r.json", "--quiet"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        let all = S.tree(out)
        #expect(!all.contains { $0.contains(".tmp-") }, "temporary files left: \(all)")
        let outputs = all.filter { !$0.hasPrefix(".") }
        let expected = inputs.flatMap { i -> [String] in
            let stem = ((i as NSString).lastPathComponent as NSString).deletingPathExtension
            return [stem + ".jpg", stem + ".tif"]
        }.sorted()
        #expect(outputs == expected)
        for o in outputs {
            let d = try OutputInspector.decodeRGB8([UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/" + o))))
            #expect(d.width == 584 && d.height == 384, "\(o)")
        }
        let t = S.totals(try S.report(dir + "/r.json"))
        #expect((t["developed"] as? Int ?? 0) + (t["upToDate"] as? Int ?? 0) == inputs.count)
    }

    /// SIGINT midway: running files finish, no new ones start, exit 130, nothing partial; the
    /// rerun completes the rest.
    @Test func sigintStopsCleanly() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let inputs = try S.writeCharts(in: input, count: 10)
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = ["develop", input, "-o", out, "--jobs", "1", "--quiet", "--log", "json", "--report", dir + "/r.json"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        while p.isRunning && !S.tree(out).contains(where: { $0.hasSuffix(".jpg") }) { usleep(2000) }
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        let outputs = S.tree(out).filter { !$0.hasPrefix(".") }
        #expect(!S.tree(out).contains { $0.contains(".tmp-") })
        if outputs.count < inputs.count {
            #expect(p.terminationStatus == 130)
            let t = S.totals(try S.report(dir + "/r.json"))
            #expect(t["interrupted"] as? Bool == true)
            #expect((t["notRun"] as? Int ?? 0) == inputs.count - outputs.count)
        }
        for o in outputs {
            let d = try OutputInspector.decodeRGB8([UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/" + o))))
            #expect(d.width == 584 && d.height == 384)
        }
        let r = try S.run(["develop", input, "-o", out, "--jobs", "1", "--quiet"])
        #expect(r.status == 0)
        #expect(S.tree(out).filter { !$0.hasPrefix(".") }.count == inputs.count)
    }

    /// Three shards into one OUTDIR: disjoint, and together every file; each shard keeps its
    /// own manifest file.
    @Test func shardsCoverEverythingOnce() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let inputs = try S.writeCharts(in: input, count: 9)
        var seen: [String: Int] = [:]
        for k in 1...3 {
            let r = try S.run(["develop", input, "-o", out, "--shard", "\(k)/3", "--report", dir + "/s\(k).json", "--quiet", "--thumbnail-size", "0"])
            #expect(r.status == 0, "stderr: \(r.stderr)")
            for f in S.files(try S.report(dir + "/s\(k).json")) {
                let rel = f["relativePath"] as? String ?? ""
                #expect(seen[rel] == nil, "\(rel) in shards \(seen[rel] ?? 0) and \(k)")
                seen[rel] = k
            }
        }
        #expect(Set(seen.keys) == Set(inputs.map { ($0 as NSString).lastPathComponent }))
        #expect(S.tree(out).filter { $0.hasPrefix(".darkroom-manifest-") }.count == 3)
        // Rerunning unsharded finds everything up to date via the merged shard manifests.
        let r = try S.run(["develop", input, "-o", out, "--report", dir + "/all.json", "--quiet", "--thumbnail-size", "0"])
        #expect(r.status == 0)
        #expect(S.totals(try S.report(dir + "/all.json"))["upToDate"] as? Int == inputs.count)
    }

    /// Recipe file values apply, flags override them, `recipe --print` shows the result.
    @Test func recipeFileAndFlagOverride() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let inputs = try S.writeCharts(in: dir + "/in", count: 1)
        try """
        color-space: p3
        exposure: 0.5
        format: jpeg,tiff
        bit-depth: 16
        name: "{stem}-dev"
        """.write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        let p = try S.run(["recipe", "--print", "--recipe", dir + "/r.yaml", "--exposure=-1", "--format", "tiff"])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("color-space: p3"))
        #expect(p.stdout.contains("bit-depth: 16"))
        #expect(p.stdout.contains("exposure: -1"))
        #expect(p.stdout.contains("- tiff") && !p.stdout.contains("- jpeg"))
        #expect(p.stdout.contains("tile-size: 256"), "defaults are printed too")

        let r = try S.run(["develop", inputs[0], "-o", dir + "/out", "--recipe", dir + "/r.yaml", "--color-space", "srgb", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let outs = S.tree(dir + "/out").filter { !$0.hasPrefix(".") }
        #expect(outs == ["chart-rggb-12bit-D65-dev.jpg", "chart-rggb-12bit-D65-dev.tif"].sorted() || outs.count == 2)
        let tif = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/out/" + (outs.first { $0.hasSuffix(".tif") } ?? ""))))
        let summary = try OutputInspector.inspect(tif)
        #expect(summary.bitsPerSample == 16, "bit-depth from the file")
        #expect(summary.iccDescription?.lowercased().contains("srgb") == true, "color-space from the flag: \(summary.iccDescription ?? "none")")
    }

    @Test func usageErrorsExit2() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        for args in [["develop", dir, "-o", dir + "/o", "--jobs", "0"], ["develop", dir, "-o", dir + "/o", "--shard", "4/3"],
                     ["develop", dir, "-o", dir + "/o", "--bogus"], ["develop", dir, "-o", dir + "/o", "--name", "{nope}"],
                     ["develop", dir, "-o", dir + "/o", "--mattes", "halo"], ["develop", dir, "-o", dir + "/o", "--matte", "skin"]] {
            let r = try S.run(args)
            #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
        }
        let missing = try S.run(["develop", dir + "/missing.dng", "-o", dir + "/o", "--quiet"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("missing.dng"))
    }

    /// An embedded DNG preview is extracted as is; without one, a fast render of --size.
    @Test func thumbnails() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let inputs = try S.writeCharts(in: dir + "/in", count: 1)
        let r = try S.run(["thumbnail", inputs[0], "-o", dir + "/t", "--size", "146"])
        #expect(r.status == 0, "\(r.stderr)")
        let d = try OutputInspector.decodeRGB8([UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/t/chart-rggb-12bit-D65.jpg"))))
        #expect(d.width == 146 && d.height == 96)
        #expect(r.stdout.contains("half-size binned"))
        // The binned render matches the full develop box-filtered to the same size within a few
        // levels on average (only resampling and JPEG differ).
        let full = try S.run(["develop", inputs[0], "-o", dir + "/full", "--quiet", "--thumbnail-size", "0"])
        #expect(full.status == 0)
        let f = try OutputInspector.decodeRGB8([UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/full/chart-rggb-12bit-D65.jpg"))))
        let image = RenderedImage(width: f.width, height: f.height, bitsPerSample: 8, pixels8: f.pixels, colorSpaceName: "srgb", iccProfile: [])
        let small = try #require(Thumbnailer.thumbnail(of: image, longSide: 146))
        #expect(small.width == d.width && small.height == d.height)
        let meanDiff = zip(small.pixels, d.pixels).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(d.pixels.count)
        #expect(meanDiff < 6, "mean |difference| \(meanDiff) levels")
        print("thumbnail: half-size binned vs full develop: mean |difference| \(meanDiff) levels")
        if let dng = S.sharedSamples("dng")?.appendingPathComponent("photoprism_canon_eos_6d.dng"),
           FileManager.default.fileExists(atPath: dng.path) {
            let r2 = try S.run(["thumbnail", dng.path, "-o", dir + "/t"])
            #expect(r2.status == 0, "\(r2.stderr)")
            #expect(r2.stdout.contains("embedded 1024x683 JPEG preview"))
            let p = try OutputInspector.decodeRGB8([UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/t/photoprism_canon_eos_6d.jpg"))))
            #expect(p.width == 1024 && p.height == 683)
        }
    }
}
