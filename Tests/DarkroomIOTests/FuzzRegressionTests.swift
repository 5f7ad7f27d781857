import DarkroomFuzzBodies
import Foundation
import Testing

/// Every input a fuzzer ever crashed on (`Tests/Fuzz/Regressions/<Target>/*`, saved by `make fuzz`)
/// replayed through the same target body, in every build `make test` runs (debug, and release with
/// the `-Ounchecked` kernels): a crasher that comes back ends the test process, failing the suite.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Regressions")

    static let bodies: [String: @Sendable (UnsafePointer<UInt8>, Int) -> Int32] = [
        "FuzzDNGMetadata": fuzzDNGMetadata, "FuzzOpcodeList": fuzzOpcodeList, "FuzzLosslessJPEG": fuzzLosslessJPEG,
        "FuzzContainers": fuzzContainers, "FuzzDecode": fuzzDecode, "FuzzColourFiles": fuzzColourFiles,
    ]

    @Test func savedCrashersNoLongerCrash() throws {
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: Self.root.path)) ?? []
        var replayed = 0
        for target in targets.sorted() {
            guard let body = Self.bodies[target] else { Issue.record("unknown fuzz target folder \(target)"); continue }
            let dir = Self.root.appendingPathComponent(target)
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() {
                let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
                let result = bytes.withUnsafeBufferPointer { b -> Int32 in
                    guard let base = b.baseAddress else { return 0 }
                    return body(base, b.count)
                }
                #expect(result == 0, "\(target)/\(name)")
                replayed += 1
            }
        }
        #expect(replayed >= 1, "no saved crashers found in \(Self.root.path)")
    }
}
