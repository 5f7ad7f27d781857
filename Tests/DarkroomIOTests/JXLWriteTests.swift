import CJXL
import DarkroomCore
import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomFormats
@testable import DarkroomIO

/// Lossless JPEG XL raw data written by `DNGWriter` (`DNGCompression.jpegXL`, `convert
/// --compression jxl-lossless`), checked against the reference implementation: the DNG SDK 1.7.1
/// read the committed files `SDKReference/jxl_written_*.dng` (our writer) and its stage-1 dumps
/// `jxl_written_*.stage1.tif` are the source samples exactly; it accepted their NewRawImageDigest
/// (the MD5 of the tiles' MD5s, the SDK's digest of compressed raw data) without a message.
/// Fresh writes decode to their source for any thread count, with the same bytes.
@Suite struct JXLWriteTests {
    /// (name, samples per pixel, width, height): a CFA mosaic of 2 × 2 tiles of 256 (the right and
    /// bottom ones mostly padding) and a LinearRaw strip of two tiles across.
    static let fixtures: [(String, Int, Int, Int)] = [("jxl_written_cfa", 1, 300, 270), ("jxl_written_linearraw", 3, 272, 40)]
    static let directory = SDKOpcodeCase.directory

    static func source(spp: Int, width: Int, height: Int) -> RawImage {
        SyntheticStored.image(samplesPerPixel: spp, width: width, height: height)
    }

    static func options(threads: Int = 1) -> DNGWriteOptions {
        var o = DNGWriteOptions(tileSize: 256, software: "Darkroom JPEG XL fixture", dateTime: "2026:11:26 00:00:00",
                                compression: .jpegXL(effort: 7))
        o.rawDigests = true
        o.threads = threads
        return o
    }

    /// `RECORD_JXL_FIXTURES=1 swift test --filter JXLWriteTests/recordFixturesWhenAsked` rewrites the
    /// DNGs; then `dng_validate -1 NAME.stage1 NAME.dng` makes each dump (see SDKReference/README.md).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RECORD_JXL_FIXTURES"] == "1"))
    func recordFixturesWhenAsked() throws {
        for (name, spp, w, h) in Self.fixtures {
            try DNGWriter.write(Self.source(spp: spp, width: w, height: h), to: "\(Self.directory)/\(name).dng", options: Self.options())
        }
    }

    /// The SDK's stage 1 of our JPEG XL DNGs is the source image, sample for sample, and so is our
    /// own decoder's reading; the files say DNG 1.7.1, Compression 52546, fields 2×2 for the CFA.
    @Test(arguments: fixtures.map { $0.0 })
    func sdkReadsOurJXLExactly(_ name: String) throws {
        let (_, spp, w, h) = try #require(Self.fixtures.first { $0.0 == name })
        let source = Self.source(spp: spp, width: w, height: h)
        let path = "\(Self.directory)/\(name).dng"
        let sdk = try #require(DNGTestSupport.libtiffRead("\(Self.directory)/\(name).stage1.tif", subIFD: false))
        #expect(sdk.width == w && sdk.height == h && sdk.spp == spp)
        #expect(sdk.pixels == source.pixels, "\(name): the DNG SDK decodes other values")
        let ours = try #require(try DNGConverter.storedDNGSamples(path: path, memoryLimit: nil, fileSize: Int.max))
        #expect(ours.pixels == source.pixels, "\(name): our decoder reads other values")
        let parsed = try DNGMetadataReader.readForDecoding(contentsOf: path)
        let layout = try #require(parsed.layout)
        #expect(layout.compression == 52546)
        #expect(layout.rowInterleaveFactor == (spp == 1 ? 2 : 1) && layout.columnInterleaveFactor == (spp == 1 ? 2 : 1))
        #expect(parsed.metadata.dngVersion == [1, 7, 1, 0])
        #expect(layout.bitsPerSample.allSatisfy { $0 == 16 })
    }

    /// NewRawImageDigest is the SDK's digest of the compressed tiles (recomputed here from the tile
    /// bytes with coreutils' md5sum, independently of our code), there is no
    /// RawImageDigest, and `verify` accepts the file; a flipped byte in a tile fails it.
    @Test(arguments: fixtures.map { $0.0 })
    func digestIsTheSDKsAndCatchesDamage(_ name: String) throws {
        let path = "\(Self.directory)/\(name).dng"
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let parsed = try DNGMetadataReader.readForDecoding(contentsOf: path)
        let layout = try #require(parsed.layout)
        let dir = TestSupport.tempDirectory("jxl-digest")
        defer { TestSupport.cleanup(dir) }
        var outer = [UInt8]()
        for (o, c) in zip(layout.offsets, layout.byteCounts) { outer += try Self.md5sum(Array(bytes[o..<(o + c)]), in: dir) }
        let expected = try Self.md5sum(outer, in: dir)
        let file = try TIFFFile(storage: ByteStorage(mapping: path))
        let ifd0 = try #require(file.ifd0)
        #expect(try ifd0.bytes(TIFFTag.newRawImageDigest) == expected)
        #expect(try ifd0.bytes(TIFFTag.rawImageDigest) == nil)
        #expect(DNGVerifier.verify(path: path).ok, "\(DNGVerifier.verify(path: path).line)")
        // One flipped bit in the middle of the first tile: verify reports it.
        var damaged = [UInt8](bytes)
        damaged[layout.offsets[0] + layout.byteCounts[0] / 2] ^= 0x10
        try Data(damaged).write(to: URL(fileURLWithPath: dir + "/d.dng"))
        #expect(!DNGVerifier.verify(path: dir + "/d.dng").ok)
        if let tool = dngValidate {
            let good = try TestSupport.runTool(tool, [path])
            #expect(!(good.stdout + good.stderr).contains("*** Error"), "\(good.stdout)\(good.stderr)")
            let bad = try TestSupport.runTool(tool, [dir + "/d.dng"])
            #expect((bad.stdout + bad.stderr).contains("*** Error"))
        }
    }

    /// MD5 of `bytes` by coreutils' `md5sum`.
    static func md5sum(_ bytes: [UInt8], in dir: String) throws -> [UInt8] {
        let file = dir + "/md5-input"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let run = try TestSupport.runTool("/usr/bin/md5sum", [file])
        let hex = Array(run.stdout.prefix(32))
        return stride(from: 0, to: 32, by: 2).map { UInt8(String(hex[$0..<($0 + 2)]), radix: 16) ?? 0 }
    }

    /// Fresh writes at odd sizes decode to their source; 1 and 2 threads give the same bytes.
    @Test(arguments: [(1, 301, 259), (3, 257, 33), (1, 64, 48)])
    func freshWritesAreLosslessAndThreadIndependent(_ c: (Int, Int, Int)) throws {
        let (spp, w, h) = c
        let source = Self.source(spp: spp, width: w, height: h)
        let dir = TestSupport.tempDirectory("jxl-write")
        defer { TestSupport.cleanup(dir) }
        try DNGWriter.write(source, to: dir + "/a.dng", options: Self.options(threads: 1))
        try DNGWriter.write(source, to: dir + "/b.dng", options: Self.options(threads: 2))
        let a = try #require(FileManager.default.contents(atPath: dir + "/a.dng"))
        #expect(a == FileManager.default.contents(atPath: dir + "/b.dng"))
        let read = try #require(try DNGConverter.storedDNGSamples(path: dir + "/a.dng", memoryLimit: nil, fileSize: Int.max))
        #expect(read.pixels == source.pixels)
        // The develop path (RawDecoder) reads it too.
        let decoded = try RawDecoder.decode(path: dir + "/a.dng")
        #expect(decoded.width == w && decoded.height == h)
    }

    /// The shared RAWs converted with `jxl-lossless`: LibRaw's unpacking of the original, exactly,
    /// and smaller raw data than lossless JPEG.
    @Test func sampleRawsConvertLosslessly() throws {
        for raw in DNGConverterSampleTests.raws {
            let (dir, jxl) = try DNGConverterSampleTests.convert(raw.path, tag: "jxl") { $0.compression = .jxl; $0.previewLongSide = nil }
            defer { TestSupport.cleanup(dir) }
            let (dir2, ljpeg) = try DNGConverterSampleTests.convert(raw.path, tag: "ljpeg") { $0.previewLongSide = nil }
            defer { TestSupport.cleanup(dir2) }
            let check = DNGVerifier.verify(path: jxl.output, original: raw.path)
            #expect(check.ok, "\(check.line)")
            #expect(jxl.rawImageDigest.isEmpty)
            print("convert \(raw.lastPathComponent): raw data JPEG XL \(String(format: "%.2f", jxl.compressionRatio)):1, lossless JPEG \(String(format: "%.2f", ljpeg.compressionRatio)):1")
            #expect(jxl.compressionRatio > ljpeg.compressionRatio)
            if let tool = dngValidate {
                let run = try TestSupport.runTool(tool, ["-1", dir + "/stage1", jxl.output])
                #expect(!(run.stdout + run.stderr).contains("*** Error"), "\(run.stdout)\(run.stderr)")
                let stage1 = try #require(DNGTestSupport.libtiffRead(dir + "/stage1.tif", subIFD: false))
                #expect(stage1.pixels == (try LibRawDecoder.unpack(path: raw.path)).pixels)
            }
        }
    }
}
