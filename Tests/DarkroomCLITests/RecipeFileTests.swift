import DarkroomBatch
import DarkroomCore
import DarkroomTestSupport
import Foundation
import Testing

/// Hostile recipe files: each is refused with one line naming the file (exit status 2), before
/// the YAML parser can overflow its stack, expand aliases, read forever or block.
@Suite("CLI: hostile recipe files", .serialized)
struct RecipeFileTests {
    static func write(_ text: String, _ dir: String, _ name: String = "r.yaml") throws -> String {
        let p = dir + "/" + name
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// (file text, the message after "PATH: ").
    static let cases: [(String, String)] = [
        ("exposure: 1\nexposure: 2\n", "duplicate key 'exposure'"),
        ("matte: {skin: a.png, skin: b.png}\n", "duplicate key 'matte.skin'"),
        ("colour-space: p3\n", "unknown key 'colour-space' (known: color-space, demosaic, wb,"),
        ("matte: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n",
         "recipe nests deeper than 8 levels (a recipe is one flat mapping)"),
        ("matte:\n" + (1...40).map { String(repeating: " ", count: $0) + "a\($0):\n" }.joined(), "recipe nests deeper than 8 levels (a recipe is one flat mapping)"),
        ("format:\n" + String(repeating: "- ", count: 20) + "jpeg\n", "recipe nests deeper than 8 levels (a recipe is one flat mapping)"),
        ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
         "YAML anchors and aliases are not allowed in a recipe"),
        ("name: &n '{stem}'\n", "YAML anchors and aliases are not allowed in a recipe"),
        ("- exposure: 1\n", "a recipe file is one YAML mapping of key: value lines"),
        ("exposure: [1, 2]\n", "exposure: must be a single value, not a list"),
        ("exposure: 11\n", "exposure: must be -10…10 (got 11)"),
        ("exposure: .nan\n", "exposure: '.nan' is not a finite number in -10…10"),
        ("threads: 9223372036854775807\n", "threads: must be 0…1024 (got 9223372036854775807)"),
        ("format: [jpeg, [tiff]]\n", "format: must be a list of plain values"),
        ("wb: hot\n", "wb: 'hot' is not one of \(WhiteBalanceRequest.grammar)"),
        ("wb: 1000\n", "wb: '1000': temperature must be 1700…100000 K"),
        ("name: \"{stem}\\n\"\n", "name: must not contain control characters"),
        ("---\nexposure: 1\n---\nexposure: 2\n", "invalid YAML ("),
        ("matte:\n\tskin: a.png\n", "invalid YAML ("),
        ("bit-depth: 16\n", "bit-depth: JPEG is 8-bit; use --format tiff or heif for --bit-depth 16"),
    ]

    @Test func refusedInProcess() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        for (text, message) in Self.cases {
            let p = try Self.write(text, dir)
            do {
                _ = try BatchRecipe.load(path: p).resolution()
                Issue.record("accepted: \(text.prefix(60))")
            } catch {
                #expect(error.description.hasPrefix("\(p): \(message)"), "\(error.description)")
            }
        }
    }

    /// Through the binary: exit 2, one line, no signal, no hang; non-regular files refused
    /// without blocking; size capped at 1 MiB.
    @Test func refusedByTheBinary() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        var paths: [(String, String)] = []
        for (i, (text, message)) in Self.cases.enumerated() {
            paths.append((try Self.write(text, dir, "c\(i).yaml"), message))
        }
        let fifo = dir + "/fifo.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        paths.append((fifo, "a recipe file must be a regular file"))
        paths.append(("/dev/zero", "a recipe file must be a regular file"))
        paths.append((dir, "a recipe file must be a regular file"))
        let big = try Self.write(String(repeating: "# padding\n", count: 110_000), dir, "big.yaml")
        paths.append((big, "recipe file is 1100000 bytes; the limit is 1048576 (1 MiB)"))
        try Data([0x65, 0x78, 0x3A, 0x20, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: dir + "/bin.yaml"))
        paths.append((dir + "/bin.yaml", "recipe file is not UTF-8 text"))
        for (p, message) in paths {
            let r = try CLIProcess.run(["recipe", "--recipe", p], timeout: 20)
            #expect(!r.signalled && !r.timedOut, "\(p)")
            #expect(r.status == 2, "\(p): \(r.status) \(r.stderr)")
            #expect(r.errorLines.count == 1 && r.errorLines[0].hasPrefix("darkroom: error: \(p): \(message)"), "\(r.stderr)")
        }
    }

    /// What is accepted: comments, quoting, flow and block lists, `key:` with no value (absent),
    /// an empty file.
    @Test func acceptedForms() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let p = try Self.write("""
            # a comment with [brackets] and &ampersands
            color-space: "p3"   # trailing comment
            format:
              - tiff
              - heif
            mattes: [gamut, 'skin']
            matte: {sky: "sky #1.png"}
            name: '{stem}-it''s'
            exposure:
            """, dir)
        let r = try BatchRecipe.load(path: p)
        #expect(r["color-space"] == .text("p3"))
        #expect(r["format"] == .list(["tiff", "heif"]))
        #expect(r["mattes"] == .list(["gamut", "skin"]))
        #expect(r["matte"] == .map(["sky": "sky #1.png"]))
        #expect(r["name"] == .text("{stem}-it's"))
        #expect(r["exposure"] == nil)
        #expect(try BatchRecipe.load(path: try Self.write("", dir, "empty.yaml")) == BatchRecipe())
    }
}
