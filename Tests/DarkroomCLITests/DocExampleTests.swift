import DarkroomTestSupport
import Foundation
import Testing

/// The examples in README.md and docs/ cannot rot: every ```sh block preceded by a
/// `<!-- runnable -->` line (or `<!-- runnable exit=N -->` for an example that shows a refusal)
/// runs with bash (`set -euo pipefail`) in a fresh temporary directory holding a `Samples` link
/// to the package's Samples/, with the built `darkroom` first on PATH, and must exit as marked.
@Suite("Docs: runnable examples")
struct DocExampleTests {
    struct Example: Sendable, CustomTestStringConvertible {
        var file: String
        var line: Int
        var expectedStatus: Int32
        var script: String
        var testDescription: String { "\(file):\(line)" }
    }

    /// The Markdown files whose examples run: README.md and docs/ (not the generated CLI pages).
    static var markdownFiles: [String] {
        let root = TestSupport.packageRoot
        var files = ["README.md"]
        if let e = FileManager.default.enumerator(atPath: root.appendingPathComponent("docs").path) {
            for case let f as String in e where f.hasSuffix(".md") && !f.hasPrefix("cli/") { files.append("docs/" + f) }
        }
        return files.sorted()
    }

    /// The marked blocks of `text` (named `file` in messages).
    static func examples(in text: String, file: String) -> [Example] {
        let lines = text.components(separatedBy: "\n")
        var out: [Example] = []
        var i = 0
        while i < lines.count {
            let marker = lines[i].trimmingCharacters(in: .whitespaces)
            if marker.hasPrefix("<!-- runnable"), marker.hasSuffix("-->"), i + 1 < lines.count,
               lines[i + 1].trimmingCharacters(in: .whitespaces) == "```sh" {
                var status: Int32 = 0
                if let r = marker.range(of: "exit=") {
                    status = Int32(marker[r.upperBound...].prefix { $0.isNumber }) ?? -1
                }
                var body: [String] = []
                var j = i + 2
                while j < lines.count, lines[j].trimmingCharacters(in: .whitespaces) != "```" { body.append(lines[j]); j += 1 }
                out.append(Example(file: file, line: i + 2, expectedStatus: status, script: body.joined(separator: "\n")))
                i = j
            }
            i += 1
        }
        return out
    }

    static var allExamples: [Example] {
        markdownFiles.flatMap { f in
            let text = (try? String(contentsOf: TestSupport.packageRoot.appendingPathComponent(f), encoding: .utf8)) ?? ""
            return examples(in: text, file: f)
        }
    }

    @Test func theDocsHaveRunnableExamples() {
        #expect(Self.allExamples.count >= 5, "expected the README and docs to mark their examples runnable")
        #expect(Self.allExamples.allSatisfy { $0.expectedStatus >= 0 }, "a marker's exit=N is not a number")
    }

    @Test func theMarkerIsRead() {
        let md = "text\n<!-- runnable exit=2 -->\n```sh\ndarkroom develop\n```\n```sh\nnot marked\n```\n"
        let found = Self.examples(in: md, file: "x.md")
        #expect(found.count == 1)
        #expect(found.first?.expectedStatus == 2 && found.first?.script == "darkroom develop" && found.first?.line == 3)
    }

    @Test(arguments: allExamples)
    func exampleRunsAsShown(_ example: Example) throws {
        guard let bin = TestSupport.binary else { throw TestSupport.TestFailure("darkroom binary not found next to the test bundle; build it first") }
        let dir = TestSupport.tempDirectory("doc-example")
        defer { TestSupport.cleanup(dir) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/Samples",
                                                   withDestinationPath: TestSupport.packageRoot.appendingPathComponent("Samples").path)
        let path = (bin as NSString).deletingLastPathComponent + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let r = try TestSupport.runTool("/bin/bash", ["-c", "set -euo pipefail\n" + example.script], in: dir,
                                        environment: ["PATH": path], limit: 600)
        #expect(r.status == example.expectedStatus,
                "\(example.file):\(example.line) exited \(r.status), expected \(example.expectedStatus)\n\(example.script)\n\(r.stderr.suffix(2000))")
    }
}
