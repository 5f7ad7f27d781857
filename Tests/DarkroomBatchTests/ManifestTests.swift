import DarkroomBatch
import DarkroomIO
import Foundation
import Testing

/// The manifest resolves `pending` records left by a killed run when it is opened, and keeps
/// another run's records when two write it.
@Suite("Manifest")
struct ManifestTests {
    typealias S = BatchTestSupport

    static func record(_ state: ManifestRecord.State, replacing: Bool = false, time: Double = 1) -> ManifestRecord {
        ManifestRecord(input: "/in/x.dng", format: "jpeg", recipe: "r", inputSize: 1, inputModified: 1, inputHash: "h",
                       state: state, replacing: replacing, time: time)
    }

    @Test func pendingRecordsAreResolvedOnOpen() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let out = try AtomicWriter.Directory(path: dir)
        // A complete JPEG (SOI … EOI), a truncated one, and none at all.
        try Data([0xFF, 0xD8] + [UInt8](repeating: 0, count: 20) + [0xFF, 0xD9]).write(to: URL(fileURLWithPath: dir + "/ok.jpg"))
        try Data([0xFF, 0xD8] + [UInt8](repeating: 0, count: 20)).write(to: URL(fileURLWithPath: dir + "/cut.jpg"))
        try Data([0xFF, 0xD8] + [UInt8](repeating: 0, count: 20) + [0xFF, 0xD9]).write(to: URL(fileURLWithPath: dir + "/old.jpg"))
        do {
            let m = try Manifest(directory: out, shard: nil)
            try m.set(outputs: ["ok.jpg": Self.record(.pending), "cut.jpg": Self.record(.pending), "gone.jpg": Self.record(.pending),
                                "old.jpg": Self.record(.pending, replacing: true)], clearingFailureOf: "x")
        }
        let m = try Manifest(directory: out, shard: nil)
        #expect(m.output("ok.jpg")?.state == .done)
        #expect(m.output("gone.jpg") == nil, "never done when missing")
        #expect(m.output("cut.jpg")?.state == .pending, "an incomplete file is not proof")
        #expect(m.output("old.jpg")?.state == .pending, "a replacement in flight is not proof")
    }

    /// Two manifest objects on one OUTDIR (as two runs): neither loses the other's records.
    @Test func twoWritersKeepEachOthersRecords() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let a = try Manifest(directory: try AtomicWriter.Directory(path: dir), shard: nil)
        let b = try Manifest(directory: try AtomicWriter.Directory(path: dir), shard: nil)
        for i in 0..<20 {
            try (i % 2 == 0 ? a : b).set(outputs: ["f\(i).jpg": Self.record(.done, time: Double(i))], clearingFailureOf: "f\(i)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/.darkroom-manifest.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((json["outputs"] as? [String: Any])?.count == 20)
    }
}
