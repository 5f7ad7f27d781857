import Foundation
import Testing

/// The layering rule of issue 19: file bytes are parsed only in DarkroomFormats, which is compiled
/// with Swift's runtime checks; `-Ounchecked` is allowed only on pixel kernels that never see file
/// bytes (DarkroomCore, and the demosaic benchmark that links it). These checks read the package
/// manifest and the sources as text, so moving a parser into Core, or adding `-Ounchecked` to
/// another target, fails the suite.
@Suite("Formats boundary")
struct FormatsBoundaryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Targets whose declaration uses unchecked settings.
    static func uncheckedTargets() throws -> [String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // The name of the settings variable that carries -Ounchecked (e.g. `coreSettings`).
        var markers = ["-Ounchecked"]
        for statement in manifest.components(separatedBy: "\nlet ").dropFirst() where statement.contains("-Ounchecked") {
            let name = statement.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !name.isEmpty, name != "package" { markers.append(String(name)) }
        }
        let settingsBlock = (manifest.components(separatedBy: "let package = Package(").last ?? manifest)
            .split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        var names: [String] = []
        // One chunk per target declaration: `.target(`, `.executableTarget(`, `.testTarget(`, …
        let pieces = settingsBlock.replacingOccurrences(of: #"\.(target|executableTarget|testTarget|systemLibrary)\("#,
                                                        with: "\u{1}", options: .regularExpression)
        for chunk in pieces.components(separatedBy: "\u{1}").dropFirst() {
            guard let n = chunk.range(of: #"name: "([^"]+)""#, options: .regularExpression) else { continue }
            let name = String(chunk[n].dropFirst(7).dropLast())
            if markers.contains(where: { chunk.contains($0) }) { names.append(name) }
        }
        return names
    }

    @Test func onlyPixelKernelsAreUnchecked() throws {
        let unchecked = Set(try Self.uncheckedTargets())
        #expect(unchecked.contains("DarkroomCore"), "the check no longer finds Core's settings: update it")
        #expect(unchecked.isSubset(of: ["DarkroomCore", "bench-demosaic"]), "unchecked targets: \(unchecked.sorted())")
    }

    /// Core may not read file bytes: no byte readers, maps, TIFF structures or stream parsing.
    @Test func coreHasNoByteParsing() throws {
        let forbidden = ["BigEndianReader", "ByteReader", "TIFFFile", "MappedFile", "mmap(", "fromByteOffset",
                         "OpcodeList.parse", "FileHandle", "Data(contentsOf", "String(contentsOf", "fopen(", "read(fd", "pread("]
        let core = Self.root.appendingPathComponent("Sources/DarkroomCore")
        let files = FileManager.default.enumerator(atPath: core.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 20)
        for f in files {
            let text = try String(contentsOf: core.appendingPathComponent(f), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
            for word in forbidden {
                #expect(!code.contains(word), "Sources/DarkroomCore/\(f) uses \(word): parsing belongs in DarkroomFormats")
            }
        }
    }
}
