import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// `DNGConverter` on the real RAWs of ../shared/samples/raw (skipped when absent) and on synthetic
/// DNG inputs: the DNG holds exactly the source's stored values, read back by our decoder and by
/// LibRaw; it develops like the original; damage is found; the bytes do not depend on threads.
@Suite(.serialized) struct DNGConverterSampleTests {
    /// Every sample RAW LibRaw reads (its metadata opens).
    static var raws: [URL] {
        TestSupport.files(in: "raw").filter { (try? RawDecoder.metadata(path: $0.path)) != nil }
    }

    static func convert(_ input: String, tag: String, _ configure: (inout DNGConvertOptions) -> Void = { _ in }) throws -> (dir: String, result: DNGConvertResult) {
        let dir = TestSupport.tempDirectory(tag)
        var options = DNGConvertOptions()
        configure(&options)
        let name = ((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".dng"
        return (dir, try DNGConverter.convert(input: input, output: dir + "/" + name, options: options))
    }

    @Test func everySampleConvertsToExactlyItsStoredValues() throws {
        for raw in Self.raws {
            let (dir, result) = try Self.convert(raw.path, tag: "exact")
            defer { TestSupport.cleanup(dir) }
            let source = try LibRawDecoder.unpack(path: raw.path)
            // Our decoder: every stored sample, masked borders included.
            let ours = try #require(try DNGConverter.storedDNGSamples(path: result.output, memoryLimit: nil, fileSize: Int.max))
            #expect(ours.metadata.sensorWidth == source.rawWidth && ours.metadata.sensorHeight == source.rawHeight, "\(raw.lastPathComponent)")
            #expect(ours.pixels == source.pixels, "\(raw.lastPathComponent): our decoder differs from LibRaw's unpacking of the original")
            #expect(ours.metadata.activeArea == source.visible, "\(raw.lastPathComponent)")
            // LibRaw reading the DNG (its own lossless-JPEG decoder) gives the original's active area.
            var libRaw = DecodeOptions()
            libRaw.nativeLosslessJPEG = false
            let viaLibRaw = try RawDecoder.decode(path: result.output, options: libRaw)
            let original = try RawDecoder.decode(path: raw.path)
            #expect(viaLibRaw.width == original.width && viaLibRaw.height == original.height)
            #expect(viaLibRaw.pixels == original.pixels, "\(raw.lastPathComponent): LibRaw reads other values from the DNG")
            #expect(viaLibRaw.metadata.cfa == original.metadata.cfa)
            #expect(viaLibRaw.metadata.blackLevel == original.metadata.blackLevel)
            #expect(viaLibRaw.metadata.whiteLevel == original.metadata.whiteLevel)
            #expect(viaLibRaw.metadata.profile?.calibrationIlluminant1 == 21)
            #expect(viaLibRaw.metadata.exif.make == original.metadata.exif.make && viaLibRaw.metadata.exif.model == original.metadata.exif.model)
            // ExposureTime is written as 1/N s: within 1 % of LibRaw's APEX-derived value.
            let t0 = try #require(original.metadata.exif.exposureTime), t1 = try #require(viaLibRaw.metadata.exif.exposureTime)
            #expect(abs(t1 - t0) <= 0.01 * t0, "ExposureTime \(t1) vs \(t0)")
            #expect(viaLibRaw.metadata.exif.isoSpeed == original.metadata.exif.isoSpeed)
            #expect(viaLibRaw.metadata.exif.dateTimeOriginal == original.metadata.exif.dateTimeOriginal)
            #expect(viaLibRaw.metadata.orientation == original.metadata.orientation)
            #expect(result.compressionRatio > 1.2, "\(raw.lastPathComponent): lossless JPEG ratio \(result.compressionRatio)")
            #expect(DNGVerifier.verify(path: result.output, original: raw.path).ok)
            // The DNG SDK's stage 1 (its decode of the stored image) is LibRaw's unpacking of the original.
            if let tool = dngValidate {
                let run = try TestSupport.runTool(tool, ["-1", dir + "/stage1", result.output])
                #expect(!(run.stdout + run.stderr).contains("*** Error"), "\(run.stdout)\(run.stderr)")
                let stage1 = try #require(DNGTestSupport.libtiffRead(dir + "/stage1.tif", subIFD: false))
                #expect(stage1.width == source.rawWidth && stage1.height == source.rawHeight)
                #expect(stage1.pixels == source.pixels, "\(raw.lastPathComponent): the DNG SDK reads other values")
            }
        }
    }

    /// Developing the DNG gives the original's picture: mean CIEDE2000 ≤ 0.5 over all pixels
    /// (default recipe, 8-bit sRGB, compared in Lab D50).
    @Test func developedDNGMatchesDevelopedOriginal() throws {
        for raw in Self.raws {
            let (dir, result) = try Self.convert(raw.path, tag: "develop") { $0.previewLongSide = nil }
            defer { TestSupport.cleanup(dir) }
            func render(_ path: String) throws -> RenderedImage {
                let image = try RawDecoder.decode(path: path)
                let plan = try PlanBuilder.plan(for: image, recipe: DevelopRecipe(), path: path)
                return TileRenderer.render(image, plan: plan)
            }
            let a = try render(raw.path), b = try render(result.output)
            try #require(a.width == b.width && a.height == b.height)
            let toXYZ = OutputColorSpace.srgb.linearRGBToXYZD50
            let decode = (0...255).map { OutputColorSpace.srgb.transfer.decode(Double($0) / 255) }
            func lab(_ p: [UInt8], _ i: Int) -> SIMD3<Double> {
                ColorMath.xyzToLab(toXYZ * SIMD3(decode[Int(p[i])], decode[Int(p[i + 1])], decode[Int(p[i + 2])]))
            }
            var sum = 0.0
            let n = a.width * a.height
            for i in 0..<n { sum += ColorMath.ciede2000(lab(a.pixels8, i * 3), lab(b.pixels8, i * 3)) }
            let mean = sum / Double(n)
            #expect(mean <= 0.5, "\(raw.lastPathComponent): mean ΔE2000 \(mean)")
        }
    }

    /// A DNG input (written by DNGWriter) converts to the same stored samples, CFA and levels:
    /// runs without the sample corpus.
    @Test(arguments: [DNGConvertOptions.Compression.ljpeg, .none]) func syntheticDNGConvertsExactly(compression: DNGConvertOptions.Compression) throws {
        let dir = TestSupport.tempDirectory("synthetic-\(compression.rawValue)")
        defer { TestSupport.cleanup(dir) }
        let image = SyntheticStored.image(samplesPerPixel: 1)
        try DNGWriter.write(image, to: dir + "/in.dng", options: DNGWriteOptions(dateTime: "2026:01:01 00:00:00"))
        var options = DNGConvertOptions()
        options.compression = compression
        let result = try DNGConverter.convert(input: dir + "/in.dng", output: dir + "/out.dng", options: options)
        let read = try #require(try DNGConverter.storedDNGSamples(path: dir + "/out.dng", memoryLimit: nil, fileSize: Int.max))
        #expect(read.pixels == image.pixels)
        #expect(read.metadata.cfa == image.metadata.cfa)
        #expect(read.metadata.whiteLevel == image.metadata.whiteLevel)
        #expect(result.newRawImageDigest == RawDigest.hex(RawDigest.newRawImageDigest(image.pixels, width: 300, height: 270, samplesPerPixel: 1)))
        #expect(DNGVerifier.verify(path: dir + "/out.dng", original: dir + "/in.dng").ok)
        // IFD0 thumbnail (RGB) and a JPEG preview SubIFD (Compression 7, YCbCr) beside the raw one.
        let file = try TIFFFile(storage: ByteStorage(mapping: dir + "/out.dng"))
        let ifds = file.allImageIFDs
        #expect(ifds.count == 3)
        #expect(ifds.contains { (try? $0.uint(TIFFTag.compression)) == 7 && (try? $0.uint(TIFFTag.photometricInterpretation)) == 6 })
        #expect((try? file.ifd0?.uint(TIFFTag.newSubFileType)) == 1)
    }

    /// A DNG input with a LinearizationTable keeps its stored values and the table; a table of
    /// ≤ 256 entries makes the SDK hash NewRawImageDigest as bytes (checked by dng_validate when given).
    @Test(arguments: [256, 4096]) func linearizationTableIsCarried(entries: Int) throws {
        let dir = TestSupport.tempDirectory("table-\(entries)")
        defer { TestSupport.cleanup(dir) }
        var image = SyntheticStored.image(samplesPerPixel: 1)
        image.pixels = image.pixels.map { $0 % UInt16(entries) }
        let table = (0..<entries).map { UInt16(min(65535, $0 * $0 / max(1, entries / 16))) }
        image.metadata.whiteLevel = [Double(table.last ?? 1)]
        var writeOptions = DNGWriteOptions(dateTime: "2026:01:01 00:00:00")
        writeOptions.linearizationTable = table
        try DNGWriter.write(image, to: dir + "/in.dng", options: writeOptions)
        _ = try DNGConverter.convert(input: dir + "/in.dng", output: dir + "/out.dng", options: DNGConvertOptions())
        let read = try #require(try DNGConverter.storedDNGSamples(path: dir + "/out.dng", memoryLimit: nil, fileSize: Int.max))
        #expect(read.pixels == image.pixels)
        #expect(read.linearizationTable == table)
        #expect(DNGVerifier.verify(path: dir + "/out.dng").ok)
        if let tool = dngValidate {
            let run = try TestSupport.runTool(tool, ["-v", dir + "/out.dng"])
            #expect(!(run.stdout + run.stderr).contains("does not match"), "\(run.stdout)")
            #expect(!(run.stdout + run.stderr).contains("*** Error"), "\(run.stdout)")
        }
    }

    @Test func threadCountAndRepeatsDoNotChangeTheBytes() throws {
        let input = Self.raws.first?.path
        let dir = TestSupport.tempDirectory("determinism")
        defer { TestSupport.cleanup(dir) }
        let source: String
        if let input { source = input } else {
            source = dir + "/in.dng"
            try DNGWriter.write(SyntheticStored.image(samplesPerPixel: 1, width: 900, height: 600), to: source,
                                options: DNGWriteOptions(dateTime: "2026:01:01 00:00:00"))
        }
        var hashes = Set<String>()
        for threads in [1, 5] {
            var options = DNGConvertOptions()
            options.threads = threads
            let out = dir + "/t\(threads).dng"
            _ = try DNGConverter.convert(input: source, output: out, options: options)
            hashes.insert(RawDigest.hex(RawDigest.md5([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))))
        }
        #expect(hashes.count == 1)
    }

    /// A flipped bit in the raw data: verify names NewRawImageDigest (and dng_validate agrees when given).
    @Test func flippedRawByteFailsVerification() throws {
        let dir = TestSupport.tempDirectory("flip")
        defer { TestSupport.cleanup(dir) }
        let source = dir + "/in.dng"
        try DNGWriter.write(SyntheticStored.image(samplesPerPixel: 1), to: source, options: DNGWriteOptions(dateTime: "2026:01:01 00:00:00"))
        var options = DNGConvertOptions()
        options.compression = .none
        let out = dir + "/out.dng"
        _ = try DNGConverter.convert(input: source, output: out, options: options)
        #expect(DNGVerifier.verify(path: out).ok)
        let parsed = try DNGMetadataReader.readForDecoding(contentsOf: out)
        let layout = try #require(parsed.layout)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        bytes[layout.offsets[0] + 2 * (10 * 256 + 10)] ^= 0x01      // tile 0, row 10, column 10
        let damaged = dir + "/damaged.dng"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let r = DNGVerifier.verify(path: damaged)
        #expect(!r.ok)
        #expect(r.line.hasPrefix("FAIL \(damaged): NewRawImageDigest"), "\(r.line)")
        if let tool = dngValidate {
            let run = try TestSupport.runTool(tool, [damaged])
            #expect((run.stdout + run.stderr).contains("NewRawImageDigest does not match raw image"))
        }
    }

    @Test func embeddedOriginalExtractsByteForByte() throws {
        let dir = TestSupport.tempDirectory("embed")
        defer { TestSupport.cleanup(dir) }
        let input: String
        if let raw = Self.raws.first { input = raw.path } else {
            input = dir + "/in.dng"
            try DNGWriter.write(SyntheticStored.image(samplesPerPixel: 1, width: 700, height: 500), to: input,
                                options: DNGWriteOptions(dateTime: "2026:01:01 00:00:00"))
        }
        var options = DNGConvertOptions()
        options.embedOriginal = true
        let out = dir + "/embedded.dng"
        _ = try DNGConverter.convert(input: input, output: out, options: options)
        let verified = DNGVerifier.verify(path: out)
        #expect(verified.ok && verified.passed.contains("OriginalRawFileDigest"), "\(verified.line)")
        try FileManager.default.createDirectory(atPath: dir + "/x", withIntermediateDirectories: true)
        let extracted = try OriginalRawExtractor.extract(dng: out, to: dir + "/x", overwrite: false)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        #expect(extracted.path == dir + "/x/" + (input as NSString).lastPathComponent)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: extracted.path))) == original)
        // Never overwritten without asking.
        #expect(throws: OriginalRawDataError.self) { _ = try OriginalRawExtractor.extract(dng: out, to: dir + "/x", overwrite: false) }
    }

    /// The block format: sizes around the 64 KiB block edge round-trip; offsets are from the fork's start.
    @Test(arguments: [0, 1, 65535, 65536, 65537, 200_000]) func originalRawDataRoundTrips(size: Int) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }
        let path = try TestSupport.temporaryFile(bytes, suffix: "bin")
        defer { TestSupport.cleanup(path) }
        let data = try OriginalRawData.encode(path: path)
        let blocks = (size + 65535) / 65536
        #expect(Array(data[0..<4]) == [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
        if blocks > 0 {
            let first = Int(data[4]) << 24 | Int(data[5]) << 16 | Int(data[6]) << 8 | Int(data[7])
            #expect(first == 4 + (blocks + 1) * 4)
        }
        var back: [UInt8] = []
        let n = try OriginalRawData.decodeDataFork(data, source: path) { back += $0 }
        #expect(n == size && back == bytes)
    }

    /// Hostile and absent inputs fail with a one-line error naming the file, and leave no output.
    @Test func hostileInputsFailCleanly() throws {
        let dir = TestSupport.tempDirectory("hostile")
        defer { TestSupport.cleanup(dir) }
        var inputs = TestSupport.files(in: "corrupt").map(\.path)
        inputs.append(dir + "/absent.cr2")
        let garbage = dir + "/garbage.nef"
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }).write(to: URL(fileURLWithPath: garbage))
        inputs.append(garbage)
        for input in inputs {
            let out = dir + "/out.dng"
            do {
                _ = try DNGConverter.convert(input: input, output: out, options: DNGConvertOptions())
                // Some "corrupt" corpus files are readable DNGs with damaged metadata only: then verified.
                #expect(DNGVerifier.verify(path: out).ok, "\(input) converted but does not verify")
                unlink(out)
            } catch {
                #expect(error.description.contains(input), "\(error.description)")
                #expect(!error.description.contains("\n"))
                #expect(!FileManager.default.fileExists(atPath: out))
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")
    }
}
