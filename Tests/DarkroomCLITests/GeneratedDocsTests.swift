import DarkroomTestSupport
import Foundation
import Testing

/// The committed generated references (docs/cli, docs/recipe-keys.md, man, completions) are exactly
/// what `darkroom generate-docs` writes now: regenerated into a temporary directory and compared
/// file by file. When this fails, run `make docs` and commit the result.
@Suite("Docs: generated references")
struct GeneratedDocsTests {
    static let generatedFolders = ["docs/cli", "man", "completions"]

    static func files(below root: String, in folders: [String]) -> Set<String> {
        var out: Set<String> = []
        for folder in folders {
            guard let e = FileManager.default.enumerator(atPath: root + "/" + folder) else { continue }
            for case let f as String in e {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: root + "/" + folder + "/" + f, isDirectory: &isDir), !isDir.boolValue {
                    out.insert(folder + "/" + f)
                }
            }
        }
        return out
    }

    @Test func committedReferencesAreFresh() throws {
        let dir = TestSupport.tempDirectory("generated-docs")
        defer { TestSupport.cleanup(dir) }
        let r = try TestSupport.run(["generate-docs", dir])
        #expect(r.status == 0, "\(r.stderr)")
        let root = TestSupport.packageRoot.path
        let fresh = Self.files(below: dir, in: Self.generatedFolders + ["docs"]).filter { !$0.hasPrefix("docs/") || $0.hasPrefix("docs/cli/") || $0 == "docs/recipe-keys.md" }
        #expect(fresh.contains("docs/recipe-keys.md") && fresh.contains("man/darkroom-develop.1") && fresh.contains("completions/darkroom.bash"))
        for f in fresh.sorted() {
            let new = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
            let old = try? String(contentsOfFile: root + "/" + f, encoding: .utf8)
            if old != new { Issue.record("\(f) is \(old == nil ? "missing" : "stale"): run `make docs` and commit it") }
        }
        let committed = Self.files(below: root, in: Self.generatedFolders)
        for f in committed.subtracting(fresh).sorted() { Issue.record("\(f) is no longer generated: remove it (`make docs`)") }
    }

    /// Two runs write the same bytes (no dates, commits or machine details in generated files).
    @Test func generationIsDeterministic() throws {
        let a = TestSupport.tempDirectory("generated-docs-a"), b = TestSupport.tempDirectory("generated-docs-b")
        defer { TestSupport.cleanup(a); TestSupport.cleanup(b) }
        #expect(try TestSupport.run(["generate-docs", a]).status == 0)
        #expect(try TestSupport.run(["generate-docs", b]).status == 0)
        let files = Self.files(below: a, in: Self.generatedFolders + ["docs"])
        #expect(!files.isEmpty)
        for f in files.sorted() {
            #expect(FileManager.default.contentsEqual(atPath: a + "/" + f, andPath: b + "/" + f), "\(f) differs between two runs")
        }
    }

    /// `--version` names the release and a commit (or "unknown" when built without git).
    @Test func versionNamesTheCommit() throws {
        let r = try TestSupport.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.range(of: #"^\d+\.\d+\.\d+ \(commit [0-9a-z.+-]+\)\n$"#, options: .regularExpression) != nil, "\(r.stdout)")
    }
}
