import DarkroomBatch
import DarkroomIO
import Foundation
import Testing

/// The one atomic writer: short temporary names the sweeper recognises, no symlink followed below
/// an output directory, protected files refused, errno → category.
@Suite("Atomic writer")
struct AtomicWriterTests {
    typealias S = BatchTestSupport

    @Test func writesBelowDirectoryWithoutFollowingSymlinks() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let out = try AtomicWriter.Directory(path: dir + "/out")
        try AtomicWriter.write([1, 2, 3], in: out, relativePath: "a/b/c.bin", overwrite: false)
        #expect(FileManager.default.contents(atPath: dir + "/out/a/b/c.bin") == Data([1, 2, 3]))
        #expect(throws: AtomicWriter.Failure.exists(path: dir + "/out/a/b/c.bin")) {
            try AtomicWriter.write([9], in: out, relativePath: "a/b/c.bin", overwrite: false)
        }
        try AtomicWriter.write([4], in: out, relativePath: "a/b/c.bin", overwrite: true)
        #expect(FileManager.default.contents(atPath: dir + "/out/a/b/c.bin") == Data([4]))

        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/out/link", withDestinationPath: dir + "/elsewhere")
        do {
            try AtomicWriter.write([5], in: out, relativePath: "link/x.bin", overwrite: true)
            Issue.record("wrote through a symlink")
        } catch {
            #expect(error.category == "output-refused")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/elsewhere").isEmpty)
        #expect(throws: AtomicWriter.Failure.self) { try out.checkParents(of: "link/x.bin") }
        try out.checkParents(of: "new/deeper/x.bin")

        // A 255-byte name: the temporary name is short enough.
        let long = String(repeating: "n", count: 255)
        try AtomicWriter.write([6], in: out, relativePath: long, overwrite: false)
        #expect(FileManager.default.fileExists(atPath: dir + "/out/" + long))
        #expect(!S.tree(dir + "/out").contains { $0.contains(".tmp-") })
    }

    @Test func protectedFilesAndNamesAreRefused() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let out = try AtomicWriter.Directory(path: dir)
        try Data([1]).write(to: URL(fileURLWithPath: dir + "/input.dng"))
        let id = try #require(AtomicWriter.FileIdentity.of(path: dir + "/input.dng"))
        #expect(link(dir + "/input.dng", dir + "/alias.jpg") == 0)
        out.protect(identities: [id], names: [".darkroom-manifest.json"])
        for name in ["input.dng", "alias.jpg", ".darkroom-manifest.json", "./.darkroom-manifest.json"] {
            #expect(throws: AtomicWriter.Failure.self) { try AtomicWriter.write([2], in: out, relativePath: name, overwrite: true) }
        }
        #expect(FileManager.default.contents(atPath: dir + "/input.dng") == Data([1]))
        #expect(AtomicWriter.Failure.noSpace(path: "p", reason: "r").category == "no-space")
        #expect(FailureCategory.noSpace.isOutputSide && FailureCategory.write.isOutputSide && !FailureCategory.crashed.isOutputSide)
    }

    /// Temporary files of dead processes go, a live process's stay, and nothing behind a symlink
    /// is touched.
    @Test func sweeperRecognisesTemporaryNames() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/out/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/out/link", withDestinationPath: dir + "/outside")
        // A pid that is surely dead: a child we started and reaped.
        let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/true"); try p.run(); p.waitUntilExit()
        let dead = p.processIdentifier
        let names = ["out/.tmp-\(dead)-17", "out/sub/.tmp-\(dead)-4294967295", "out/.IMG.jpg.tmp-\(dead)-5",
                     "out/.tmp-\(getpid())-3", "outside/.tmp-\(dead)-9", "out/keep.jpg"]
        for n in names { try Data([0]).write(to: URL(fileURLWithPath: dir + "/" + n)) }
        let removed = TempSweeper.sweep(dir + "/out")
        #expect(removed.count == 3, "\(removed)")
        #expect(S.tree(dir + "/out").sorted() == [".tmp-\(getpid())-3", "keep.jpg"])
        #expect(FileManager.default.fileExists(atPath: dir + "/outside/.tmp-\(dead)-9"))
    }

    /// Shards on several machines share one folder: a temporary file named with another machine's
    /// host tag is not judged by its process id (which means nothing here) and stays while it may
    /// still be written; once unchanged for `foreignAge` it is removed. This machine's names carry
    /// its own tag and are judged by process id as before.
    @Test func sweeperLeavesOtherMachinesLiveFiles() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/true"); try p.run(); p.waitUntilExit()
        let dead = p.processIdentifier
        let own = AtomicWriter.hostTag
        #expect(own.count == 8 && UInt32(own, radix: 16) != nil)
        let other = own == "0badcafe" ? "0badcaff" : "0badcafe"
        let names = [".tmp-\(dead)-1-\(other)", ".tmp-\(dead)-2-\(other)", ".tmp-\(dead)-3-\(own)", ".tmp-\(dead)-4-xyz"]
        for n in names { try Data([0]).write(to: URL(fileURLWithPath: dir + "/" + n)) }
        // The second foreign file was last written two hours ago.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)],
                                              ofItemAtPath: dir + "/" + names[1])
        let removed = TempSweeper.sweep(dir).map { ($0 as NSString).lastPathComponent }.sorted()
        #expect(removed == [names[1], names[2]].sorted(), "\(removed)")
        #expect(S.tree(dir).sorted() == [names[0], names[3]].sorted())
        // This process's own temporary names carry the tag.
        let written = dir + "/x.bin"
        try AtomicWriter.write([1, 2, 3], to: written, overwrite: false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: written)) == Data([1, 2, 3]))
    }

    /// Directory walks: a FIFO is listed (and refused later) but never opened, symlink loops end,
    /// the same file reached twice is listed once.
    @Test func expansionByDeviceAndInode() throws {
        let dir = S.tempDirectory()
        defer { S.cleanup(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/a/b", withIntermediateDirectories: true)
        for f in ["a/x.dng", "a/b/y.dng"] { try Data([0]).write(to: URL(fileURLWithPath: dir + "/" + f)) }
        #expect(mkfifo(dir + "/a/fifo", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/b/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/b/up2", withDestinationPath: "../..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/same.dng", withDestinationPath: "x.dng")
        let found = try InputExpander.expand([dir + "/a", dir + "/a/x.dng"], recursive: true)
        // x.dng is reached first as same.dng (sorted walk), then again by its name: listed once.
        #expect(found.map(\.relativePath).sorted() == ["b/y.dng", "fifo", "same.dng"], "\(found.map(\.relativePath))")
    }
}
