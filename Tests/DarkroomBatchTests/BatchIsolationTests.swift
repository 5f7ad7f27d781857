import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Foundation
import Testing

/// Unattended batches: a file that kills or hangs its worker, odd inputs, outputs that would
/// escape OUTDIR or replace an input, concurrent runs, kill -9 and a full disk. The real
/// `darkroom` binary runs as a subprocess; outputs are checked with libjpeg/libtiff
/// (`OutputInspector`), not with our own writer.
@Suite("Batch isolation", .serialized)
struct BatchIsolationTests {
    typealias S = BatchTestSupport

    static func entry(_ report: [String: Any], _ name: String) -> [String: Any]? {
        S.files(report).first { ($0["input"] as? String).map { ($0 as NSString).lastPathComponent } == name }
    }

    static func decodable(_ path: String) -> Bool {
        guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))),
              let d = try? OutputInspector.decodeRGB8(bytes) else { return false }
        return d.width == 584 && d.height == 384
    }

    static func sha(_ path: String) -> String {
        ContentHash.hex((try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? [])
    }

    /// One file crashes its worker (SIGSEGV), one hangs it, one grows without bound: every other
    /// file develops, the report names each failure with its category and the signal, exit 1; a
    /// rerun does not crash (exit 1: previously failed) and `--retry-failed` without the faults
    /// completes everything.
    @Test func crashHangAndMemoryHogAreIsolated() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let charts = try S.writeCharts(in: input, count: 7)
        let names = charts.map { ($0 as NSString).lastPathComponent }
        let fault = ["DARKROOM_TEST_FAULT": "crash:\(names[1]),hang:\(names[3]),memory:\(names[5])"]
        let started = Date()
        let r = try S.run(["develop", input, "-o", out, "--jobs", "2", "--timeout", "6", "--memory", "64M",
                           "--report", dir + "/r.json", "--log", "json"], environment: fault, limit: 200)
        #expect(r.status == 1, "stderr: \(r.stderr.suffix(2000))")
        let rep = try S.report(dir + "/r.json")
        #expect(rep["schemaVersion"] as? Int == 3)
        // The resolved recipe: defaults included, as `recipe --print` would name them.
        let recipe = rep["recipe"] as? [String: Any]
        #expect(recipe?["highlights"] as? String == "reconstruct")
        #expect(recipe?["look"] as? String == "reference")
        #expect(recipe?["demosaic"] as? String == "adaptive-ri")
        let crashed = Self.entry(rep, names[1]), hung = Self.entry(rep, names[3]), hog = Self.entry(rep, names[5])
        #expect(crashed?["status"] as? String == "failed")
        #expect(crashed?["category"] as? String == "crashed")
        #expect((crashed?["error"] as? String ?? "").contains("SIGSEGV"))
        #expect((crashed?["error"] as? String ?? "").contains(names[1]))
        #expect(hung?["status"] as? String == "failed")
        #expect(hung?["category"] as? String == "timeout")
        #expect((hung?["error"] as? String ?? "").contains("6 s"))
        #expect(hog?["status"] as? String == "failed")
        #expect(hog?["category"] as? String == "memory", "\(hog ?? [:])")
        for (i, n) in names.enumerated() where ![1, 3, 5].contains(i) {
            #expect(Self.entry(rep, n)?["status"] as? String == "developed", "\(n)")
            #expect(Self.decodable(out + "/" + (n as NSString).deletingPathExtension + ".jpg"), "\(n)")
        }
        #expect(S.totals(rep)["failed"] as? Int == 3)
        #expect(Date().timeIntervalSince(started) < 60, "the hang was cut by --timeout")
        #expect(!S.tree(out).contains { $0.contains(".tmp-") })

        let again = try S.run(["develop", input, "-o", out, "--report", dir + "/r2.json", "--quiet"], environment: fault, limit: 60)
        #expect(again.status == 1)
        let t2 = S.totals(try S.report(dir + "/r2.json"))
        #expect(t2["previouslyFailed"] as? Int == 3)
        #expect(t2["upToDate"] as? Int == 4)

        let retry = try S.run(["develop", input, "-o", out, "--retry-failed", "--report", dir + "/r3.json", "--quiet"], limit: 120)
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(S.totals(try S.report(dir + "/r3.json"))["developed"] as? Int == 3)
        for n in names { #expect(Self.decodable(out + "/" + (n as NSString).deletingPathExtension + ".jpg")) }
    }

    /// SIGTERM while a file hangs in its worker (no --timeout): the run ends after the grace
    /// period (10 s), the report says interrupted with the hung file not run, exit 130, and no
    /// worker outlives it.
    @Test func sigtermEndsARunWithAHungFile() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 3)
        let hung = (charts[0] as NSString).lastPathComponent
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = ["develop", dir + "/in", "-o", dir + "/out", "--jobs", "1", "--timeout", "0", "--log", "json", "--report", dir + "/r.json"]
        p.environment = ProcessInfo.processInfo.environment.merging(["DARKROOM_TEST_FAULT": "hang:\(hung)"]) { $1 }
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        // Wait for the hung file's "start" event, then give its worker time to reach the hang.
        var seen = Data()
        func started() -> Bool {
            String(decoding: seen, as: UTF8.self).split(separator: "\n").contains { $0.contains("\"event\":\"start\"") && $0.contains(hung) }
        }
        while !started() {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        let drain = Thread { _ = err.fileHandleForReading.readDataToEndOfFile() }
        drain.start()
        usleep(2_000_000)
        let signalled = Date()
        kill(p.processIdentifier, SIGTERM)
        let watchdog = DispatchWorkItem { kill(p.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        p.waitUntilExit()
        watchdog.cancel()
        #expect(Date().timeIntervalSince(signalled) < 30)
        #expect(Date().timeIntervalSince(signalled) >= Interrupt.gracePeriod - 1, "the running file had its grace period")
        #expect(p.terminationReason == .exit && p.terminationStatus == 130)
        let rep = try S.report(dir + "/r.json")
        #expect(S.totals(rep)["interrupted"] as? Bool == true)
        #expect(Self.entry(rep, hung)?["status"] as? String == "not-run")
        Self.waitForWorkers(of: p.processIdentifier)
        #expect(!S.tree(dir + "/out").contains { $0.contains(".tmp-") })
    }

    /// A worker killed from outside (SIGKILL while it develops): the file fails with the signal
    /// named, the batch goes on, and the file is not remembered as an input failure, so the rerun
    /// develops it.
    @Test func workerKilledFromOutsideIsRetriedNextRun() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 3)
        let victim = (charts[0] as NSString).lastPathComponent
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = ["develop", dir + "/in", "-o", dir + "/out", "--jobs", "1", "--timeout", "0", "--log", "json", "--report", dir + "/r.json"]
        p.environment = ProcessInfo.processInfo.environment.merging(["DARKROOM_TEST_FAULT": "hang:\(victim)"]) { $1 }
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).split(separator: "\n").contains(where: { $0.contains("\"event\":\"start\"") && $0.contains(victim) }) {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        let drain = Thread { _ = err.fileHandleForReading.readDataToEndOfFile() }
        drain.start()
        usleep(1_000_000)
        let workers = Self.workers(of: p.processIdentifier)
        #expect(workers.count == 1)
        for w in workers { kill(w, SIGKILL) }
        let watchdog = DispatchWorkItem { kill(p.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        p.waitUntilExit()
        watchdog.cancel()
        #expect(p.terminationStatus == 1)
        let rep = try S.report(dir + "/r.json")
        #expect(Self.entry(rep, victim)?["category"] as? String == "crashed")
        #expect((Self.entry(rep, victim)?["error"] as? String ?? "").contains("SIGKILL"))
        #expect(S.totals(rep)["developed"] as? Int == 2)
        let again = try S.run(["develop", dir + "/in", "-o", dir + "/out", "--report", dir + "/r2.json", "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.entry(try S.report(dir + "/r2.json"), victim)?["status"] as? String == "developed")
    }

    /// Pids of the live workers of supervisor `pid`.
    static func workers(of pid: Int32) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let p = Int32(entry), let env = FileManager.default.contents(atPath: "/proc/\(entry)/environ") else { return nil }
            return env.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "DARKROOM_WORKER_PARENT=\(pid)" } ? p : nil
        }
    }

    /// FIFOs, /dev/zero and sockets are refused without being opened (a FIFO with no writer would
    /// block an open forever); symlink loops in a -r walk end; a file reached twice develops once.
    @Test func oddInputsAreRefusedAndLoopsEnd() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let charts = try S.writeCharts(in: input + "/a", count: 2)
        #expect(mkfifo(input + "/a/pipe.dng", 0o644) == 0)
        #expect(mkfifo(dir + "/lone.dng", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: input + "/a/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: input + "/b", withDestinationPath: "a")
        try FileManager.default.createSymbolicLink(atPath: input + "/a/again.dng", withDestinationPath: charts[0])
        let r = try S.run(["develop", input, "-r", "-o", out, "--report", dir + "/r.json", "--quiet"], limit: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let rep = try S.report(dir + "/r.json")
        let files = S.files(rep)
        #expect(files.filter { $0["status"] as? String == "developed" }.count == 2, "\(files.map { $0["relativePath"] ?? "" })")
        #expect(Self.entry(rep, "pipe.dng")?["status"] as? String == "skipped")
        #expect(Self.entry(rep, "pipe.dng")?["category"] as? String == "not-regular")
        #expect(files.count == 3, "each file and directory once: \(files.map { $0["relativePath"] ?? "" })")

        for bad in [dir + "/lone.dng", "/dev/zero", "/dev/urandom"] {
            let e = try S.run(["develop", bad, "-o", out, "--report", dir + "/e.json", "--quiet"], limit: 60)
            #expect(e.status == 1)
            #expect(e.stderr.contains(bad) && e.stderr.contains("not a regular file"), "\(e.stderr)")
            #expect(Self.entry(try S.report(dir + "/e.json"), (bad as NSString).lastPathComponent)?["category"] as? String == "not-regular")
        }
    }

    /// A symlinked sub-directory inside OUTDIR is never followed; an output never replaces an
    /// input (a RAW named .tif developed to TIFF in its own folder, or a hard link in OUTDIR); the
    /// report may not replace the manifest; output names of 255 bytes work.
    @Test func outputsStayInsideOutdirAndOffInputs() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out", elsewhere = dir + "/elsewhere"
        try S.writeCharts(in: input + "/sub", count: 1)
        let top = try S.writeCharts(in: input, count: 1)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: out + "/sub", withDestinationPath: elsewhere)
        let r = try S.run(["develop", input, "-r", "-o", out, "--report", dir + "/r.json", "--quiet"])
        #expect(r.status == 1)
        let rep = try S.report(dir + "/r.json")
        let refused = S.files(rep).first { $0["relativePath"] as? String == "sub/" + (top[0] as NSString).lastPathComponent }
        #expect(refused?["category"] as? String == "output-refused", "\(refused ?? [:])")
        #expect((try FileManager.default.contentsOfDirectory(atPath: elsewhere)).isEmpty, "nothing written through the symlink")
        #expect(Self.decodable(out + "/" + ((top[0] as NSString).lastPathComponent as NSString).deletingPathExtension + ".jpg"))

        // A RAW named .tif, developed to TIFF into its own folder with --overwrite.
        let s = dir + "/s"
        try FileManager.default.createDirectory(atPath: s, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: top[0], toPath: s + "/IMG_0001.tif")
        let before = Self.sha(s + "/IMG_0001.tif")
        let t = try S.run(["develop", s + "/IMG_0001.tif", "-o", s, "--format", "tiff", "--overwrite", "--report", dir + "/t.json", "--quiet"])
        #expect(t.status == 1)
        #expect(t.stderr.contains("IMG_0001.tif") && t.stderr.contains("input"), "\(t.stderr)")
        #expect(Self.sha(s + "/IMG_0001.tif") == before, "the input is untouched")
        #expect(Self.entry(try S.report(dir + "/t.json"), "IMG_0001.tif")?["category"] as? String == "output-refused")

        // An input hard-linked under an output's name inside OUTDIR.
        let o2 = dir + "/o2"
        try FileManager.default.createDirectory(atPath: o2, withIntermediateDirectories: true)
        let stem = ((top[0] as NSString).lastPathComponent as NSString).deletingPathExtension
        #expect(link(top[0], o2 + "/" + stem + ".jpg") == 0)
        let h = try S.run(["develop", top[0], "-o", o2, "--overwrite", "--quiet"])
        #expect(h.status == 1)
        #expect(Self.sha(top[0]) == before)

        // --report onto the manifest: usage error, manifest intact.
        let manifest = out + "/.darkroom-manifest.json"
        let m0 = Self.sha(manifest)
        let m = try S.run(["develop", input, "-r", "-o", out, "--report", manifest, "--quiet"])
        #expect(m.status == 2, "\(m.stderr)")
        #expect(m.stderr.contains("manifest"))
        #expect(Self.sha(manifest) == m0)

        // A 251-byte stem: 255-byte output names (the temporary name is short).
        let long = String(repeating: "x", count: 251)
        try FileManager.default.copyItem(atPath: top[0], toPath: dir + "/" + long + ".dng")
        let l = try S.run(["develop", dir + "/" + long + ".dng", "-o", dir + "/o3", "--format", "jpeg,tiff", "--quiet"])
        #expect(l.status == 0, "\(l.stderr)")
        #expect(Self.decodable(dir + "/o3/" + long + ".jpg"))
        #expect(FileManager.default.fileExists(atPath: dir + "/o3/" + long + ".tif"))
    }

    /// Three runs at once into one OUTDIR (two over the same inputs): every output decodable, the
    /// manifest holds every output as done, and a rerun finds everything up to date (exit 0).
    @Test func concurrentRunsLoseNoRecords() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        try S.writeCharts(in: input + "/a", count: 6)
        try S.writeCharts(in: input + "/b", count: 6)
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        var procs: [Process] = []
        for k in 0..<3 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: bin)
            // Run 0 and 1 race on the same files (names a/…, b/…); run 2 names b's files at the top.
            p.arguments = ["develop", k == 2 ? input + "/b" : input, "-r", "-o", out, "--jobs", "2", "--quiet", "--thumbnail-size", "0"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            procs.append(p)
        }
        for p in procs { p.waitUntilExit() }
        let outputs = S.tree(out).filter { !$0.hasPrefix(".") }
        #expect(outputs.count == 18)
        for o in outputs { #expect(Self.decodable(out + "/" + o), "\(o)") }
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/.darkroom-manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let records = manifest["outputs"] as? [String: [String: Any]] ?? [:]
        #expect(Set(records.keys) == Set(outputs), "records: \(records.keys.sorted())")
        let r = try S.run(["develop", input, "-r", "-o", out, "--report", dir + "/r.json", "--quiet", "--thumbnail-size", "0"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(S.totals(try S.report(dir + "/r.json"))["upToDate"] as? Int == 12)
        let rb = try S.run(["develop", input + "/b", "-o", out, "--report", dir + "/rb.json", "--quiet", "--thumbnail-size", "0"])
        #expect(rb.status == 0, "\(rb.stderr)")
        #expect(S.totals(try S.report(dir + "/rb.json"))["upToDate"] as? Int == 6)
    }

    /// kill -9 of the whole run at random moments: after each kill every output present is
    /// complete, every `done` record's output exists; the last rerun completes everything.
    @Test func killNineAtRandomPointsLeavesNothingInconsistent() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let charts = try S.writeCharts(in: input, count: 8)
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<20 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: bin)
            p.arguments = ["develop", input, "-o", out, "--jobs", "2", "--format", "jpeg,tiff", "--quiet", trial % 2 == 0 ? "--overwrite" : "--jobs=2"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            usleep(UInt32.random(in: 30_000...1_500_000, using: &generator))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            Self.waitForWorkers(of: p.processIdentifier)
            for o in S.tree(out) where o.hasSuffix(".jpg") { #expect(Self.decodable(out + "/" + o), "trial \(trial): \(o)") }
            for o in S.tree(out) where o.hasSuffix(".tif") {
                #expect((try? OutputInspector.inspect([UInt8](Data(contentsOf: URL(fileURLWithPath: out + "/" + o)))))?.width == 584)
            }
            if let data = try? Data(contentsOf: URL(fileURLWithPath: out + "/.darkroom-manifest.json")) {
                let m = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "trial \(trial): manifest parses")
                for (k, v) in m["outputs"] as? [String: [String: Any]] ?? [:] where v["state"] as? String == "done" {
                    #expect(FileManager.default.fileExists(atPath: out + "/" + k), "trial \(trial): done but missing: \(k)")
                }
            }
        }
        let r = try S.run(["develop", input, "-o", out, "--jobs", "2", "--format", "jpeg,tiff", "--report", dir + "/r.json", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let t = S.totals(try S.report(dir + "/r.json"))
        #expect((t["developed"] as? Int ?? 0) + (t["upToDate"] as? Int ?? 0) == charts.count)
        #expect(!S.tree(out).contains { $0.contains(".tmp-") })
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/.darkroom-manifest.json"))
        let m = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let records = m["outputs"] as? [String: [String: Any]] ?? [:]
        #expect(records.count == charts.count * 2)
        #expect(records.values.allSatisfy { $0["state"] as? String == "done" })
    }

    /// Waits (up to 5 s) until no worker of the killed supervisor `pid` is alive (each notices
    /// within 0.2 s and exits).
    static func waitForWorkers(of pid: Int32) {
        for _ in 0..<50 {
            if workers(of: pid).isEmpty { return }
            usleep(100_000)
        }
    }

    /// A full disk (a 1 MiB tmpfs as OUTDIR; needs root, else skipped): the files that do not fit
    /// fail with category `no-space` and are not remembered, so after space is freed the rerun
    /// develops exactly the rest.
    @Test func fullDiskIsNotAnInputFailure() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let input = dir + "/in", out = dir + "/out"
        let charts = try S.writeCharts(in: input, count: 8)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=1m", "tmpfs", out]
        mount.standardError = FileHandle.nullDevice
        guard (try? mount.run()) != nil else { return }
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { print("fullDiskIsNotAnInputFailure: skipped (cannot mount tmpfs)"); return }
        defer {
            let u = Process()
            u.executableURL = URL(fileURLWithPath: "/bin/umount")
            u.arguments = [out]
            try? u.run(); u.waitUntilExit()
        }
        // Leave room for about three 40 KB outputs.
        let filler = out + "/filler.bin"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o644)
        var block = [UInt8](repeating: 7, count: 4096)
        var total = 0
        while total < 1_048_576 - 150_000 { let n = write(fd, &block, 4096); if n <= 0 { break }; total += n }
        close(fd)
        let r = try S.run(["develop", input, "-o", out, "--jobs", "1", "--thumbnail-size", "0", "--report", dir + "/r.json", "--quiet"])
        #expect(r.status == 1)
        let rep = try S.report(dir + "/r.json")
        let failed = S.files(rep).filter { $0["status"] as? String == "failed" }
        #expect(!failed.isEmpty)
        #expect(failed.allSatisfy { ["no-space", "manifest"].contains($0["category"] as? String ?? "") }, "\(failed)")
        #expect(failed.contains { ($0["error"] as? String ?? "").contains("No space left") })
        #expect(!S.tree(out).contains { $0.contains(".tmp-") })
        try FileManager.default.removeItem(atPath: filler)
        let again = try S.run(["develop", input, "-o", out, "--jobs", "1", "--thumbnail-size", "0", "--report", dir + "/r2.json", "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        let t = S.totals(try S.report(dir + "/r2.json"))
        #expect(t["previouslyFailed"] as? Int == 0)
        #expect((t["developed"] as? Int ?? 0) + (t["upToDate"] as? Int ?? 0) == charts.count)
        for c in charts { #expect(Self.decodable(out + "/" + ((c as NSString).lastPathComponent as NSString).deletingPathExtension + ".jpg")) }
    }

    /// A single-file develop runs in process (no worker process is started), yet a file that
    /// hangs still ends at --timeout: the report names the timeout, exit 1, no temporary file
    /// left, and the rerun (without the fault) develops it.
    @Test func singleFileInProcessStillEndsAtItsTimeout() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 1)
        let name = (charts[0] as NSString).lastPathComponent
        let started = Date()
        let r = try S.run(["develop", charts[0], "-o", dir + "/out", "--timeout", "2", "--report", dir + "/r.json", "--quiet"],
                          environment: ["DARKROOM_TEST_FAULT": "hang:\(name)"], limit: 60)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(r.status == 1, "\(r.stderr)")
        let rep = try S.report(dir + "/r.json")
        #expect(Self.entry(rep, name)?["category"] as? String == "timeout")
        #expect((Self.entry(rep, name)?["error"] as? String ?? "").contains("develop abandoned"), "in process, not a worker")
        #expect(!S.tree(dir + "/out").contains { $0.contains(".tmp-") || $0.hasSuffix(".jpg") })
        let again = try S.run(["develop", charts[0], "-o", dir + "/out", "--retry-failed", "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// A develop in a worker process writes the same bytes as `FileDeveloper` in this process for
    /// a non-default recipe (the recipe survives the trip over the pipe; a folder as input, so a
    /// worker process develops it).
    @Test func workerOutputEqualsInProcessDevelop() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 1)
        let r = try S.run(["develop", dir + "/in", "-o", dir + "/out", "--exposure", "0.7", "--color-space", "p3", "--tone", "linear",
                           "--format", "jpeg,tiff", "--bit-depth", "16", "--quality", "83", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        var recipe = DevelopRecipe()
        recipe.exposureStops = 0.7; recipe.colorSpace = .p3; recipe.tone = .linear; recipe.bitsPerSample = 16
        var export = ExportOptions(); export.quality = 83
        let stem = ((charts[0] as NSString).lastPathComponent as NSString).deletingPathExtension
        _ = try FileDeveloper.develop(input: charts[0], outputs: [(.jpeg, dir + "/ref.jpg"), (.tiff, dir + "/ref.tif")],
                                      recipe: recipe, export: export)
        #expect(Self.sha(dir + "/out/" + stem + ".jpg") == Self.sha(dir + "/ref.jpg"))
        #expect(Self.sha(dir + "/out/" + stem + ".tif") == Self.sha(dir + "/ref.tif"))
    }
}
