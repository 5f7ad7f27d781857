import DarkroomBatch
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing
import Yams

/// Darkroom under real schedulers, with the recipes shipped in docs/cluster: a one-node SLURM
/// cluster started and stopped here (Tests/Cluster/slurm-cluster.sh: munged, slurmctld, slurmd)
/// runs the develop and convert array scripts with one task killed by SIGKILL mid-run and
/// requeued and another requeued while it runs (SIGTERM, as preemption does); GNU parallel runs
/// its recipe; the Kubernetes Indexed Job manifest is checked for shape. The job's outputs must
/// equal a single-machine run's byte for byte, the merged report must account for every input
/// once, and nothing half-written may stay. Skipped, with a line saying why, where slurm-wlm,
/// munge or parallel are not installed (`make test` installs them) or not running as root.
@Suite("Cluster: SLURM, GNU parallel, Kubernetes", .serialized)
struct ClusterTests {
    typealias S = BatchTestSupport
    static let root = TestSupport.packageRoot.path
    static let clusterScript = root + "/Tests/Cluster/slurm-cluster.sh"

    static func bash(_ script: String, environment: [String: String] = [:], limit: Double = 120) throws -> TestSupport.Run {
        try TestSupport.runTool("/bin/bash", ["-c", script], environment: environment, limit: limit)
    }

    /// Every output below `dir` (manifests, locks and reports aside) with its content hash.
    static func outputs(_ dir: String) -> [String: String] {
        var out: [String: String] = [:]
        for rel in S.tree(dir) where !(rel as NSString).lastPathComponent.hasPrefix(".darkroom-") {
            if let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/" + rel))) { out[rel] = ContentHash.hex(bytes) }
        }
        return out
    }

    /// Waits until `condition` holds or `seconds` pass; true when it held.
    @discardableResult
    static func wait(_ seconds: Double, poll: UInt32 = 50_000, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            usleep(poll)
        }
        return try condition()
    }

    static func merged(_ reports: String, into path: String) throws -> (run: TestSupport.Run, report: [String: Any]) {
        let run = try TestSupport.run(["report", "merge", reports, "-o", path])
        let report = (try? TestSupport.report(path)) ?? [:]
        return (run, report)
    }

    /// The inputs of `shard` among `inputs` (relative to their root, as the batch engine hashes them).
    static func inputs(_ inputs: [String], of shard: Shard) -> [String] {
        inputs.map { ($0 as NSString).lastPathComponent }.filter { shard.contains(relativePath: $0) }
    }

    // MARK: SLURM

    @Test func slurmArrayJobsSurviveKillAndRequeue() throws {
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        // A short folder of its own: munged's socket path must stay under 108 bytes.
        let cluster = "/tmp/drs-" + UUID().uuidString.prefix(8)
        defer { S.cleanup(cluster) }
        let start = try TestSupport.runTool(Self.clusterScript, ["start", cluster], limit: 90)
        if start.status == 3 {
            print("ClusterTests: SLURM test skipped: \(start.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
            return
        }
        defer { _ = try? TestSupport.runTool(Self.clusterScript, ["stop", cluster], limit: 60) }
        try #require(start.status == 0, "cluster did not start: \(start.stderr)")
        let env = ["SLURM_CONF": cluster + "/slurm.conf", "DARKROOM": bin]
        let input = dir + "/in"
        // 80 files, each written as JPEG and TIFF: each task has ~20 files to do, long enough to be
        // caught mid-run.
        let charts = try S.writeCharts(in: input, count: 80)

        for command in ["develop", "convert"] {
            let ref = dir + "/\(command)-ref", out = dir + "/\(command)-out"
            let extra = command == "develop" ? ["--format", "jpeg,tiff"] : []
            let single = try S.run([command, input, "-r", "-o", ref, "--quiet"] + extra, limit: 300)
            #expect(single.status == 0, "\(single.stderr)")

            let submit = try Self.bash("cd '\(dir)' && sbatch --parsable --array=1-4 --cpus-per-task=1 --mem=1G "
                                       + "'\(Self.root)/docs/cluster/\(command).sbatch' '\(input)' '\(out)' \(extra.joined(separator: " "))", environment: env)
            try #require(submit.status == 0, "sbatch: \(submit.stderr)")
            let job = String(submit.stdout.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            func state(_ task: Int) throws -> String {
                try Self.bash("squeue -h -j \(job)_\(task) -o %T", environment: env).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            // Task 2: SIGKILL to the task as soon as it runs and its shard's first file is under
            // way (output or temporary file present), then requeue it.
            let names2 = Set(Self.inputs(charts, of: try Shard(index: 2, count: 4)).map { ($0 as NSString).deletingPathExtension })
            try Self.wait(60, poll: 10_000) { try state(2) == "RUNNING" }
            Self.wait(5, poll: 2_000) {
                S.tree(out).contains { rel in names2.contains { rel.contains($0) } }
            }
            let kill = try Self.bash("scancel --signal=KILL --batch \(job)_2", environment: env)
            #expect(kill.status == 0, "scancel: \(kill.stderr)")
            try Self.wait(30) { try state(2) != "RUNNING" }
            let requeue2 = try Self.bash("scontrol requeue \(job)_2", environment: env)
            #expect(requeue2.status == 0, "requeue: \(requeue2.stderr)")
            // Task 3: requeued as it runs or after it ended (SIGTERM, then the grace period).
            _ = try Self.bash("scontrol requeue \(job)_3", environment: env)
            // SLURM holds a requeued task for two minutes (Reason=BeginTime); let them start now.
            for task in [2, 3] { _ = try Self.bash("scontrol update jobid=\(job)_\(task) StartTime=now", environment: env) }

            let finished = try Self.wait(240, poll: 200_000) {
                try Self.bash("squeue -h -j \(job) -o %i", environment: env).stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            }
            #expect(finished, "\(command) job \(job) did not finish in 240 s")
            let restarts = try Self.bash("scontrol show job \(job)_2 | grep -o 'Restarts=[0-9]*'", environment: env).stdout
            #expect(restarts.contains("Restarts=1") || restarts.contains("Restarts=2"), "task 2 was not requeued: \(restarts)")

            // One report for the whole job: every input once, all done.
            let (merge, report) = try Self.merged(out + ".reports", into: dir + "/\(command)-merged.json")
            #expect(merge.status == 0, "\(command) merge: \(merge.stderr)")
            let files = S.files(report)
            #expect(files.count == charts.count)
            #expect(Set(files.compactMap { ($0["input"] as? String).map { ($0 as NSString).lastPathComponent } })
                    == Set(charts.map { ($0 as NSString).lastPathComponent }))
            #expect((report["mergedShards"] as? [String]) == ["1/4", "2/4", "3/4", "4/4"])

            // The same outputs as one machine's run, nothing half-written.
            let got = Self.outputs(out), want = Self.outputs(ref)
            #expect(Set(got.keys) == Set(want.keys), "\(command): \(got.keys.sorted()) vs \(want.keys.sorted())")
            // Convert's bytes depend only on the input and the options (DateTime is the capture
            // time), so both commands' outputs must match to the byte.
            for (k, v) in want { #expect(got[k] == v, "\(command): \(k) differs from the single-machine run") }
            if command == "convert" {
                let verify = try S.run(["verify"] + got.keys.filter { $0.hasSuffix(".dng") }.sorted().map { out + "/" + $0 })
                #expect(verify.status == 0, "\(verify.stdout)")
            }
            #expect(!S.tree(out).contains { $0.contains(".tmp-") }, "temporary files left in \(out)")
        }
    }

    // MARK: GNU parallel

    @Test func gnuParallelRecipe() throws {
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        guard TestSupport.tool("/usr/bin/parallel") != nil else {
            print("ClusterTests: GNU parallel test skipped: /usr/bin/parallel not installed (Debian package parallel)")
            return
        }
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 12)
        let single = try S.run(["develop", dir + "/in", "-r", "-o", dir + "/ref", "--quiet"], limit: 300)
        #expect(single.status == 0, "\(single.stderr)")
        let run = try TestSupport.runTool(Self.root + "/docs/cluster/develop-parallel.sh", [dir + "/in", dir + "/out", "4", "2"],
                                          environment: ["DARKROOM": bin], limit: 300)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let report = try TestSupport.report(dir + "/out.report.json")
        #expect(S.files(report).count == charts.count)
        #expect((report["mergedShards"] as? [String]) == ["1/4", "2/4", "3/4", "4/4"])
        let got = Self.outputs(dir + "/out"), want = Self.outputs(dir + "/ref")
        #expect(got == want, "outputs differ from the single-machine run")
    }

    // MARK: shards side by side

    /// Two shards at once into one folder over 40 files: every output recorded once in the
    /// manifests, the merged report complete, and an unsharded rerun finds all 40 up to date.
    @Test func twoShardsAtOnceLoseNoRecord() throws {
        guard let bin = S.binary else { throw S.TestFailure("darkroom binary not found") }
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 40)
        var processes: [Process] = []
        for k in 1...2 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: bin)
            p.arguments = ["develop", dir + "/in", "-o", dir + "/out", "--shard", "\(k)/2", "--jobs", "1", "--threads", "1",
                           "--thumbnail-size", "0", "--report", dir + "/reports/s\(k).json", "--quiet"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try FileManager.default.createDirectory(atPath: dir + "/reports", withIntermediateDirectories: true)
            try p.run()
            processes.append(p)
        }
        for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
        var records = 0
        for name in S.tree(dir + "/out") where name.hasPrefix(".darkroom-manifest") && name.hasSuffix(".json") {
            let m = try TestSupport.report(dir + "/out/" + name)
            records += (m["outputs"] as? [String: Any])?.count ?? 0
        }
        #expect(records == charts.count)
        let (merge, report) = try Self.merged(dir + "/reports", into: dir + "/merged.json")
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(S.totals(report)["developed"] as? Int == charts.count)
        let again = try S.run(["develop", dir + "/in", "-o", dir + "/out", "--thumbnail-size", "0", "--report", dir + "/all.json", "--quiet"])
        #expect(again.status == 0)
        #expect(S.totals(try S.report(dir + "/all.json"))["upToDate"] as? Int == charts.count)
    }

    /// Merging says what is missing: a shard without a report, an input in two shards, reports of
    /// different commands; each a line, the merged report still written where it can be.
    @Test func mergeNamesWhatIsMissing() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let charts = try S.writeCharts(in: dir + "/in", count: 6)
        try FileManager.default.createDirectory(atPath: dir + "/reports", withIntermediateDirectories: true)
        for k in 1...3 {
            let r = try S.run(["develop", dir + "/in", "-o", dir + "/out", "--shard", "\(k)/3", "--thumbnail-size", "0",
                               "--report", dir + "/reports/s\(k).json", "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let (ok, report) = try Self.merged(dir + "/reports", into: dir + "/merged.json")
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(S.files(report).count == charts.count)
        #expect(ok.stdout.contains("6 files in 3 shards: 6 developed"), "\(ok.stdout)")

        try FileManager.default.removeItem(atPath: dir + "/reports/s3.json")
        let (missing, partial) = try Self.merged(dir + "/reports", into: dir + "/partial.json")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no report for shard 3/3"), "\(missing.stderr)")
        #expect(S.files(partial).count == charts.count - Self.inputs(charts, of: try Shard(index: 3, count: 3)).count)

        // A whole run's report beside shard reports overlaps them.
        _ = try S.run(["develop", dir + "/in", "-o", dir + "/out", "--thumbnail-size", "0", "--report", dir + "/reports/all.json", "--quiet"])
        let overlap = try TestSupport.run(["report", "merge", dir + "/reports", "-o", dir + "/o.json"])
        #expect(overlap.status == 1)
        #expect(overlap.stderr.contains("a whole run, not a shard"), "\(overlap.stderr)")

        // A convert report with develop reports; a file that is not a report; -o onto an input.
        let conv = try S.run(["convert", charts[0], "-o", dir + "/dng", "--report", dir + "/conv.json", "--quiet"])
        #expect(conv.status == 0, "\(conv.stderr)")
        let mixed = try TestSupport.run(["report", "merge", dir + "/conv.json", dir + "/reports/s1.json"])
        #expect(mixed.status == 2 && mixed.stderr.contains("reports of different commands"), "\(mixed.stderr)")
        let notReport = try TestSupport.run(["report", "merge", charts[0]])
        #expect(notReport.status == 2 && notReport.stderr.contains("not a darkroom develop or convert report"), "\(notReport.stderr)")
        let onto = try TestSupport.run(["report", "merge", dir + "/reports/s1.json", "-o", dir + "/reports/s1.json"])
        #expect(onto.status == 2 && onto.stderr.contains("is one of the reports read"), "\(onto.stderr)")
        let fifo = dir + "/fifo.json"
        mkfifo(fifo, 0o644)
        let f = try TestSupport.run(["report", "merge", fifo], limit: 20)
        #expect(f.status == 2 && f.stderr.contains("regular file"), "\(f.stderr)")
    }

    // MARK: Kubernetes

    /// The Indexed Job manifest: a batch/v1 Job, completionMode Indexed, `--shard auto/N` with N
    /// equal to `completions`, one report per index, pods never restarted in place.
    @Test func kubernetesIndexedJobManifest() throws {
        let text = try String(contentsOfFile: Self.root + "/docs/cluster/develop-indexed-job.yaml", encoding: .utf8)
        let doc = try #require(try Yams.load(yaml: text) as? [String: Any])
        #expect(doc["apiVersion"] as? String == "batch/v1")
        #expect(doc["kind"] as? String == "Job")
        let spec = try #require(doc["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        #expect((spec["parallelism"] as? Int ?? 0) <= completions)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        let command = ((container["command"] as? [String] ?? []) + (container["args"] as? [String] ?? [])).joined(separator: " ")
        #expect(command.contains("--shard auto/\(completions)"), "\(command)")
        #expect(command.contains("$JOB_COMPLETION_INDEX.json"), "\(command)")
        // The recipes are valid shell.
        for script in ["develop.sbatch", "convert.sbatch", "develop-parallel.sh"] {
            let r = try TestSupport.runTool("/bin/bash", ["-n", Self.root + "/docs/cluster/" + script])
            #expect(r.status == 0, "\(script): \(r.stderr)")
        }
    }
}
