import DarkroomTestSupport
import Foundation
import Testing

/// The rules `make test` keeps about itself: the one test build is the configuration users get with
/// Swift's runtime checks on every target that reads file bytes, arguments or recipes; the suite
/// budget guard fails a run whose suite is too slow; the list of suites `make test-fast` skips names
/// only suites that exist. They read the Makefile and run Tests/Tools/suite_times.py as `make` does.
@Suite("Test harness")
struct TestHarnessTests {
    static let root = TestSupport.packageRoot

    static func makeVariable(_ name: String) throws -> String {
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        guard let line = makefile.split(separator: "\n").first(where: { $0.hasPrefix(name + " :=") }) else {
            throw TestSupport.TestFailure("Makefile has no \(name) := line")
        }
        return String(line.dropFirst(name.count + 3)).trimmingCharacters(in: .whitespaces)
    }

    /// The test build is a release build (Core's kernels as shipped) and turns no check off anywhere.
    @Test func testBuildIsReleaseWithChecks() throws {
        let config = try Self.makeVariable("TEST_CONFIG")
        #expect(config.contains("-c release"), "make test must test the configuration users get: \(config)")
        #expect(config.contains("-enable-testing"))
        for flag in ["-Ounchecked", "-enforce-exclusivity=unchecked", "-remove-runtime-asserts", "-assert-config"] {
            #expect(!config.contains(flag), "TEST_CONFIG turns checks off: \(flag)")
        }
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for flag in ["-enforce-exclusivity=unchecked", "-remove-runtime-asserts", "-assert-config"] {
            #expect(!manifest.contains(flag), "Package.swift turns a runtime check off: \(flag)")
        }
    }

    static func guardRun(_ events: [String], budget: Int, expect: [String] = []) throws -> TestSupport.Run {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        try events.joined(separator: "\n").write(toFile: dir + "/e.jsonl", atomically: true, encoding: .utf8)
        var args = [Self.root.appendingPathComponent("Tests/Tools/suite_times.py").path, dir + "/e.jsonl",
                    "--budget", "\(budget)"]
        if !expect.isEmpty {
            try expect.joined(separator: "\n").write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
            args += ["--expect-suites", dir + "/list.txt"]
        }
        guard let python = TestSupport.tool("/usr/bin/python3", "/usr/local/bin/python3") else {
            throw TestSupport.TestFailure("python3 not found")
        }
        return try TestSupport.runTool(python, args, limit: 60)
    }

    /// Two events of Swift Testing's stream (version 0) for one test.
    static func test(_ suite: String, _ name: String, from start: Double, to end: Double) -> [String] {
        let id = "M.\(suite)\\/\(name)()\\/F.swift:1:1"
        return ["started", "ended"].enumerated().map { i, kind in
            #"{"kind":"event","payload":{"instant":{"absolute":\#(i == 0 ? start : end),"since1970":0},"kind":"test\#(kind.capitalized)","messages":[],"testID":"\#(id)"},"version":0}"#
        }
    }

    /// A suite made slow (two tests of 70 s against a 90 s budget) fails the run, names the suite
    /// and is marked in the table; the same stream passes under a budget it fits.
    @Test func budgetGuardFailsASlowSuite() throws {
        let events = Self.test("SlowSuite", "a", from: 0, to: 70) + Self.test("SlowSuite", "b", from: 70, to: 140)
            + Self.test("QuickSuite", "c", from: 140, to: 141.5)
        let over = try Self.guardRun(events, budget: 90)
        #expect(over.status == 1)
        #expect(over.stderr.contains("M.SlowSuite took 140.0 s, over the 90 s budget"), "\(over.stderr)")
        #expect(over.stdout.contains("140.0      2  M.SlowSuite  << over budget"), "\(over.stdout)")
        #expect(over.stdout.contains("1.5      1  M.QuickSuite\n"), "\(over.stdout)")
        let fits = try Self.guardRun(events, budget: 150)
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    /// A name in the skip list that matches no suite that ran fails, so the list cannot rot.
    @Test func staleSkipListFails() throws {
        let events = Self.test("QuickSuite", "c", from: 0, to: 1)
        #expect(try Self.guardRun(events, budget: 90, expect: ["QuickSuite  # reason"]).status == 0)
        let stale = try Self.guardRun(events, budget: 90, expect: ["QuickSuite", "GoneSuite # renamed"])
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("suite GoneSuite did not run"), "\(stale.stderr)")
    }

    /// An empty stream (no test ran) fails rather than printing an empty table.
    @Test func noTestsFails() throws {
        #expect(try Self.guardRun([], budget: 90).status == 1)
    }
}
