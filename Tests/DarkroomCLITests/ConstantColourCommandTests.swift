import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom constant-colour` end to end on the generator's pairs (Tests/ConstantColourPairs).
@Suite("ConstantColourCommand")
struct ConstantColourCommandTests {
    static let pairs = TestSupport.packageRoot.appendingPathComponent("Tests/ConstantColourPairs").path
    static func pair(_ name: String) -> [String] {
        ["--ambient", "\(pairs)/\(name)-ambient.dng", "--flash", "\(pairs)/\(name)-flash.dng"]
    }
    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func report(_ path: String) throws -> ConstantColourReport {
        try JSONDecoder().decode(ConstantColourReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Same bytes (JPEG, HEIF, TIFF) for 1 and 2 threads.
    @Test func identicalBytesForAnyThreadCount() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        for t in ["1", "2"] {
            let r = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/t\(t)", "--format", "jpeg,heif,tiff", "--threads", t])
            #expect(r.status == 0, "\(r.stderr)")
        }
        for ext in ["jpg", "heic", "tif"] {
            let one = try Self.bytes("\(dir)/t1/mixed-ambient-constant-colour.\(ext)")
            let two = try Self.bytes("\(dir)/t2/mixed-ambient-constant-colour.\(ext)")
            #expect(one.count > 1000 && one == two, "\(ext)")
        }
    }

    /// The confidence plane and the XMP scalar are in the outputs; the fallback follows
    /// --min-confidence (auto) and is marked in its XMP.
    @Test func confidencePlaneXMPAndFallback() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let good = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", dir, "--format", "jpeg,heif", "--min-confidence", "0.4"])
        #expect(good.status == 0, "\(good.stderr)")
        let rep = try Self.report("\(dir)/mixed-ambient-constant-colour.json")
        #expect(rep.centreWeightedConfidence > 0.4 && rep.fallbackOutputs.isEmpty)
        #expect(abs(rep.exposureRatio - 0.25) < 1e-9 && rep.registration.dx == 0 && rep.registration.dy == 0)
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/mixed-ambient-fallback.jpg"))
        for ext in ["jpg", "heic"] {
            let b = try Self.bytes("\(dir)/mixed-ambient-constant-colour.\(ext)")
            let s = try OutputInspector.inspect(b)
            #expect(s.width == 192 && s.height == 128)
            #expect(s.auxiliaryPlanes.contains(.init(urn: "urn:org:darkroom:aux:constantcolorconfidence", width: 96, height: 64)), "\(ext)")
            let (_, _, px) = try OutputInspector.decodeAuxiliary(b, urn: MatteKind.constantColourConfidence.urn)
            // The flash shadow (columns 122–133: plane columns 61–66) is all low.
            var shadowMax: UInt8 = 0
            for y in 0..<64 { for x in 62...65 { shadowMax = max(shadowMax, px[y * 96 + x]) } }
            #expect(shadowMax < 128, "\(ext)")
            #expect(px.max() ?? 0 > 200)
        }
        if let exiftool = TestSupport.tool("/usr/bin/exiftool", "/usr/local/bin/exiftool") {
            let r = try TestSupport.runTool(exiftool, ["-s3", "-XMP-darkroom:ConstantColorConfidence", "-XMP-darkroom:ConstantColorFallback",
                                                       "\(dir)/mixed-ambient-constant-colour.jpg"])
            #expect(r.stdout.split(separator: "\n") == [Substring(String(format: "%.3f", rep.centreWeightedConfidence)), "False"], "\(r.stdout)")
        }

        let weak = try CLIProcess.run(["constant-colour"] + Self.pair("weak") + ["-o", dir])
        #expect(weak.status == 0, "\(weak.stderr)")
        let wr = try Self.report("\(dir)/weak-ambient-constant-colour.json")
        #expect(wr.centreWeightedConfidence < 0.2)
        #expect(wr.fallbackOutputs == ["\(dir)/weak-ambient-fallback.jpg"])
        #expect(FileManager.default.fileExists(atPath: "\(dir)/weak-ambient-fallback.jpg"))
        if let exiftool = TestSupport.tool("/usr/bin/exiftool", "/usr/local/bin/exiftool") {
            let r = try TestSupport.runTool(exiftool, ["-s3", "-XMP-darkroom:ConstantColorFallback", "\(dir)/weak-ambient-fallback.jpg"])
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "True")
        }
        // never: no fallback even for the weak pair.
        let never = try CLIProcess.run(["constant-colour"] + Self.pair("weak") + ["-o", "\(dir)/never", "--fallback", "never"])
        #expect(never.status == 0 && !FileManager.default.fileExists(atPath: "\(dir)/never/weak-ambient-fallback.jpg"))
    }

    /// Bad arguments exit 2; bad files exit 1 with one line naming the file, writing nothing;
    /// existing outputs are kept without --overwrite.
    @Test func errors() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        for bad in [["--flash-xy", "0.9,0.5"], ["--format", "png"], ["--min-confidence", "2"], ["--fallback", "maybe"],
                    ["--flash-xy", "0.3,0.3", "--flash-profile", "x.dcp"]] {
            let r = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", dir] + bad)
            #expect(r.status == 2, "\(bad)")
        }
        // A truncated flash frame.
        let truncated = "\(dir)/truncated.dng"
        try Data(try Self.bytes("\(Self.pairs)/mixed-flash.dng").prefix(3000)).write(to: URL(fileURLWithPath: truncated))
        let t = try CLIProcess.run(["constant-colour", "--ambient", "\(Self.pairs)/mixed-ambient.dng", "--flash", truncated, "-o", "\(dir)/out"])
        #expect(t.status == 1 && !t.signalled)
        #expect(t.errorLines.count == 1 && t.errorLines.first?.contains(truncated) == true, "\(t.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out/mixed-ambient-constant-colour.jpg"))
        // An ambient file as the flash: no flash illuminant in its profile, unless --flash-xy.
        let noFlash = try CLIProcess.run(["constant-colour", "--ambient", "\(Self.pairs)/mixed-ambient.dng", "--flash", "\(Self.pairs)/weak-ambient.dng", "-o", "\(dir)/nf"])
        #expect(noFlash.status == 1 && noFlash.errorLines.count == 1 && noFlash.stderr.contains("no usable flash profile"), "\(noFlash.stderr)")
        // Existing outputs stay unless --overwrite.
        let first = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/ow"])
        #expect(first.status == 0)
        let before = try Self.bytes("\(dir)/ow/mixed-ambient-constant-colour.jpg")
        let again = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/ow", "--flash-xy", "0.31,0.33"])
        #expect(again.status == 1 && again.stderr.contains("exists"))
        #expect(try Self.bytes("\(dir)/ow/mixed-ambient-constant-colour.jpg") == before)
        let forced = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/ow", "--flash-xy", "0.31,0.33", "--overwrite"])
        #expect(forced.status == 0)
        #expect(try Self.bytes("\(dir)/ow/mixed-ambient-constant-colour.jpg") != before)
    }

    /// Every file of ../shared/samples/corrupt as either frame: a clean exit (1, one line naming
    /// a file), never a signal or a hang, and no output. Skipped when the corpus is absent.
    @Test func corruptCorpusAsEitherFrame() throws {
        let files = TestSupport.files(in: "corrupt")
        guard !files.isEmpty else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let good = "\(Self.pairs)/mixed-ambient.dng"
        for f in files {
            for args in [["--ambient", f.path, "--flash", good], ["--ambient", good, "--flash", f.path]] {
                let r = try CLIProcess.run(["constant-colour"] + args + ["-o", "\(dir)/out"], timeout: 60)
                #expect(!r.signalled && !r.timedOut, "\(f.lastPathComponent)")
                #expect(r.status == 1, "\(f.lastPathComponent): \(r.status) \(r.stderr)")
                #expect(r.errorLines.count == 1 && (r.errorLines.first?.contains(f.path) == true || r.errorLines.first?.contains(good) == true),
                        "\(f.lastPathComponent): \(r.stderr)")
            }
        }
        let written = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/out")) ?? []
        #expect(written.filter { !$0.hasPrefix(".") }.isEmpty, "\(written)")
    }

    /// The flash profile from the flash file, from a .dcp holding the same profile (written by the
    /// generator with Python's struct, not by Darkroom) and from --flash-xy at the flash's white:
    /// the same image bytes; the report names the source. Another white changes the image.
    @Test func flashProfileSources() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let runs: [(String, [String])] = [("file", []), ("dcp", ["--flash-profile", "\(Self.pairs)/flash.dcp"]),
                                          ("xy", ["--flash-xy", "0.342185,0.350156"]), ("other", ["--flash-xy", "0.3127,0.3290"]),
                                          ("spectrum", ["--flash-spectrum", "\(Self.pairs)/led-b4.csv"])]
        var images: [String: [UInt8]] = [:]
        for (name, args) in runs {
            let r = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/\(name)"] + args)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            images[name] = try Self.bytes("\(dir)/\(name)/mixed-ambient-constant-colour.jpg")
        }
        #expect(images["dcp"] == images["file"])
        #expect(images["xy"] == images["file"])
        #expect(images["other"] != images["file"])
        #expect(try Self.report("\(dir)/dcp/mixed-ambient-constant-colour.json").flashProfile == "\(Self.pairs)/flash.dcp")
        #expect(try Self.report("\(dir)/file/mixed-ambient-constant-colour.json").flashProfile == "flash file")
        let spectrum = try Self.report("\(dir)/spectrum/mixed-ambient-constant-colour.json")
        #expect(spectrum.flashProfile == "\(Self.pairs)/led-b4.csv")
        #expect(abs(spectrum.flashWhiteXY[0] - 0.342185) < 3e-4 && abs(spectrum.flashWhiteXY[1] - 0.350156) < 3e-4)
    }

    /// --pairs: three pairs, the middle one's flash missing. The other two are done, the bad one
    /// costs one error line naming its file, exit 1; the batch report lists all three with their
    /// status, confidence and fallback; per-pair outputs carry the CSV's names; the outputs of a
    /// pair equal a single-pair run's bytes. A pairs file with colliding names is a usage error.
    @Test func pairsWithFailureIsolation() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let csv = "\(dir)/pairs.csv"
        try """
            # ambient, flash, name
            ambient,flash,name
            \(Self.pairs)/mixed-ambient.dng,\(Self.pairs)/mixed-flash.dng,good
            \(Self.pairs)/weak-ambient.dng,\(dir)/missing.dng
            \(Self.pairs)/weak-ambient.dng,\(Self.pairs)/weak-flash.dng,dim
            """.write(toFile: csv, atomically: true, encoding: .utf8)
        let r = try CLIProcess.run(["constant-colour", "--pairs", csv, "-o", "\(dir)/out"])
        #expect(r.status == 1 && !r.signalled)
        #expect(r.errorLines.count == 1 && r.errorLines.first?.contains("\(dir)/missing.dng") == true, "\(r.stderr)")
        let report = try JSONDecoder().decode(ConstantColourBatch.Report.self, from: Data(contentsOf: URL(fileURLWithPath: "\(dir)/out/constant-colour-report.json")))
        #expect(report.done == 2 && report.failed == 1)
        #expect(report.pairs.map(\.name) == ["good", "weak-ambient", "dim"])
        #expect(report.pairs.map(\.status) == ["done", "failed", "done"])
        #expect(report.pairs[1].error?.contains("missing.dng") == true && report.pairs[1].centreWeightedConfidence == nil)
        #expect((report.pairs[0].centreWeightedConfidence ?? 0) > 0.4 && (report.pairs[2].centreWeightedConfidence ?? 1) < 0.2)
        #expect(report.pairs[2].fallback && report.pairs[2].fallbackOutputs == ["\(dir)/out/dim-fallback.jpg"])
        #expect(FileManager.default.fileExists(atPath: "\(dir)/out/good-constant-colour.jpg"))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out/weak-ambient-constant-colour.jpg"))
        let single = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/single"])
        #expect(single.status == 0)
        #expect(try Self.bytes("\(dir)/out/good-constant-colour.jpg") == Self.bytes("\(dir)/single/mixed-ambient-constant-colour.jpg"))

        try "\(Self.pairs)/mixed-ambient.dng,\(Self.pairs)/mixed-flash.dng\n\(Self.pairs)/mixed-ambient.dng,\(Self.pairs)/weak-flash.dng\n"
            .write(toFile: csv, atomically: true, encoding: .utf8)
        let collide = try CLIProcess.run(["constant-colour", "--pairs", csv, "-o", "\(dir)/c"])
        #expect(collide.status == 2 && collide.errorLines == ["darkroom: error: \(csv):2: name 'mixed-ambient' is also line 1's: their outputs would collide (give a third column)"],
                "\(collide.stderr)")
        for bad in [["--pairs", csv, "--ambient", "a.dng", "-o", dir], ["--ambient", "a.dng", "-o", dir], ["--pairs", csv, "--explain"]] {
            #expect(try CLIProcess.run(["constant-colour"] + bad).status == 2, "\(bad)")
        }
    }

    /// --recipe: the YAML's keys are the flags' names; its values are used, flags override them,
    /// an unknown key or a bad value is a usage error naming the file.
    @Test func recipeFile() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let recipe = "\(dir)/cc.yaml"
        try "format: [jpeg, tiff]\nmin-confidence: 0.95\nfallback: auto\nflash-xy: 0.3127,0.3290\n".write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/a", "--recipe", recipe])
        #expect(r.status == 0, "\(r.stderr)")
        let rep = try Self.report("\(dir)/a/mixed-ambient-constant-colour.json")
        #expect(rep.minConfidence == 0.95 && rep.flashProfile == "--flash-xy" && rep.fallbackOutputs.count == 2)
        #expect(FileManager.default.fileExists(atPath: "\(dir)/a/mixed-ambient-constant-colour.tif"))
        // Flags override: the flash file's own profile is used when a flash flag is given; --min-confidence wins.
        let o = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/b", "--recipe", recipe, "--min-confidence", "0.1",
                                                                             "--flash-spectrum", "\(Self.pairs)/led-b4.csv"])
        #expect(o.status == 0, "\(o.stderr)")
        let orep = try Self.report("\(dir)/b/mixed-ambient-constant-colour.json")
        #expect(orep.minConfidence == 0.1 && orep.fallbackOutputs.isEmpty && orep.flashProfile.hasSuffix("led-b4.csv"))
        for (text, message) in [("colour: red\n", "unknown key 'colour'"), ("min-confidence: lots\n", "min-confidence: 'lots' is not a number"),
                                ("fallback: maybe\n", "fallback: 'maybe' is not auto, always or never")] {
            try text.write(toFile: recipe, atomically: true, encoding: .utf8)
            let bad = try CLIProcess.run(["constant-colour"] + Self.pair("mixed") + ["-o", "\(dir)/c", "--recipe", recipe])
            #expect(bad.status == 2 && bad.errorLines.count == 1 && bad.stderr.contains(recipe) && bad.stderr.contains(message), "\(bad.stderr)")
        }
    }

    /// --explain prints the exposure ratio, flash profile, registration shift and residual, the
    /// masks' fractions and the centre-weighted confidence — the numbers the report of a real run
    /// holds — and writes nothing.
    @Test func explain() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let run = try CLIProcess.run(["constant-colour"] + Self.pair("shifted") + ["-o", "\(dir)/run"])
        #expect(run.status == 0)
        let rep = try Self.report("\(dir)/run/shifted-ambient-constant-colour.json")
        let e = try CLIProcess.run(["constant-colour"] + Self.pair("shifted") + ["--explain", "-o", "\(dir)/explain"])
        #expect(e.status == 0, "\(e.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/explain"))
        let out = e.stdout
        #expect(out.contains("exposure ratio     0.2500"))
        #expect(out.contains("flash profile      flash file, white xy (0.3422, 0.3502)"))
        #expect(out.contains("registration       dx 3, dy 0, residual \(String(format: "%.3f", rep.registration.residual))"))
        #expect(out.contains("flashShadow \(String(format: "%.2f", 100 * (rep.maskFractions["flashShadow"] ?? -1))) %"))
        #expect(out.contains("confidence         \(String(format: "%.3f", rep.centreWeightedConfidence)) centre-weighted"), "\(out)")
        #expect(out.contains("predicted ΔE2000   median "))
    }
}
