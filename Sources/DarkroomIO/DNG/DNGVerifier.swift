import DarkroomCore
import DarkroomFormats
import Foundation

/// The outcome of checking one DNG: `failure` is nil when every check passed.
public struct DNGVerifyResult: Sendable, Codable, Equatable {
    public var path: String
    /// What was checked and found right, e.g. "NewRawImageDigest", "3244032 samples = original".
    public var passed: [String]
    public var failure: String?
    public var ok: Bool { failure == nil }
    /// One line: "OK PATH (checks)" or "FAIL PATH: reason".
    public var line: String {
        if let failure { return "FAIL \(path): \(failure)" }
        return "OK \(path) (\(passed.joined(separator: ", ")))"
    }
}

/// Checks a DNG without trusting its writer: decodes every stored sample with our decoder,
/// recomputes RawImageDigest / NewRawImageDigest (`RawDigest`, as the DNG SDK does) and
/// OriginalRawFileDigest and compares them with the tags; given the original RAW, compares the
/// decoded samples with LibRaw's unpacking of it, value for value.
public enum DNGVerifier {
    public static func verify(path: String, original: String? = nil, threads: Int = 0) -> DNGVerifyResult {
        var result = DNGVerifyResult(path: path, passed: [])
        do throws(DNGConvertError) {
            let size: Int
            do { size = try InputFile.requireRegularFile(path) } catch { throw .decode(error) }
            guard let read = try DNGConverter.storedDNGSamples(path: path, memoryLimit: nil, fileSize: size) else {
                throw .unsupported(path: path, reason: "not a DNG")
            }
            result.passed.append("decoded \(read.metadata.sensorWidth)x\(read.metadata.sensorHeight)")
            let digests = try checkDigests(path: path, pixels: read.pixels, metadata: read.metadata, threads: threads)
            result.passed += digests.checks
            if let failure = digests.failure { throw .mismatch(path: path, detail: failure) }
            if let original {
                let originalSize: Int
                do { originalSize = try InputFile.requireRegularFile(original) } catch { throw .decode(error) }
                let source = try DNGConverter.storedImage(path: original, fileSize: originalSize, memoryLimit: nil).image
                let md = read.metadata
                guard source.width == md.sensorWidth, source.height == md.sensorHeight, source.samplesPerPixel == md.samplesPerPixel else {
                    throw .mismatch(path: path, detail: "stores \(md.sensorWidth)x\(md.sensorHeight)x\(md.samplesPerPixel), original \(original) has \(source.width)x\(source.height)x\(source.samplesPerPixel)")
                }
                if let i = DNGConverter.firstDifference(read.pixels, source.pixels) {
                    let spp = source.samplesPerPixel
                    throw .mismatch(path: path, detail: "sample at x \(i / spp % source.width), y \(i / spp / source.width) is \(read.pixels[i]), original \(original) has \(source.pixels[i])")
                }
                result.passed.append("\(source.pixels.count) samples = original")
            }
        } catch {
            result.failure = error.description.hasPrefix(path) ? String(error.description.dropFirst(path.count + 2)) : error.description
        }
        return result
    }

    /// The raw IFD's tiles or strips as stored, copied one at a time from the file's mapping
    /// `storage` (empty when the layout is unreadable, which the decode before this call would
    /// already have reported).
    static func compressedBlocks(path: String, storage: ByteStorage) -> [[UInt8]] {
        guard let parsed = try? DNGMetadataReader.readForDecoding(contentsOf: path), let layout = parsed.layout else { return [] }
        return zip(layout.offsets, layout.byteCounts).map { offset, count in
            guard offset >= 0, count >= 0, offset <= storage.count, count <= storage.count - offset else { return [] }
            return storage.copy(offset..<(offset + count))
        }
    }

    /// Compares the digest tags of IFD0 with digests of `pixels` (the stored samples): checks
    /// passed, and the first failure. A file with neither RawImageDigest nor NewRawImageDigest fails.
    static func checkDigests(path: String, pixels: [UInt16], metadata md: RawMetadata,
                             threads: Int) throws(DNGConvertError) -> (checks: [String], failure: String?) {
        let file: TIFFFile, storage: ByteStorage
        do { storage = try ByteStorage(mapping: path); file = try TIFFFile(storage: storage) } catch {
            throw .decode(.corrupt(path: path, detail: error.underlying.description))
        }
        guard let ifd0 = file.ifd0 else { throw .decode(.corrupt(path: path, detail: "no IFD0")) }
        func tag(_ t: UInt16) -> [UInt8]? { (try? ifd0.bytes(t)) ?? nil }
        var checks: [String] = []
        let newTag = tag(TIFFTag.newRawImageDigest), oldTag = tag(TIFFTag.rawImageDigest)
        if newTag == nil && oldTag == nil { return (checks, "no RawImageDigest or NewRawImageDigest tag") }
        if let stored = newTag, md.compression == JXLDNGDecoder.compression {
            // JPEG XL raw data: the SDK's digest of the compressed tiles.
            let computed = RawDigest.compressedTilesDigest(compressedBlocks(path: path, storage: storage))
            guard stored == computed else {
                return (checks, "NewRawImageDigest \(RawDigest.hex(stored)) does not match the compressed raw tiles (\(RawDigest.hex(computed)))")
            }
            checks.append("NewRawImageDigest")
        } else if let stored = newTag {
            let computed = RawDigest.newRawImageDigest(pixels, width: md.sensorWidth, height: md.sensorHeight,
                                                       samplesPerPixel: md.samplesPerPixel,
                                                       eightBit: md.bitsPerSample <= 8 || (md.linearizationTableCount ?? Int.max) <= 256,
                                                       threads: threads)
            guard stored == computed else {
                return (checks, "NewRawImageDigest \(RawDigest.hex(stored)) does not match the raw image (\(RawDigest.hex(computed)))")
            }
            checks.append("NewRawImageDigest")
        }
        if let stored = oldTag {
            let computed = RawDigest.rawImageDigest(pixels)
            guard stored == computed else {
                return (checks, "RawImageDigest \(RawDigest.hex(stored)) does not match the raw image (\(RawDigest.hex(computed)))")
            }
            checks.append("RawImageDigest")
        }
        if let stored = tag(TIFFTag.originalRawFileDigest), let data = tag(TIFFTag.originalRawFileData) {
            let computed = RawDigest.md5(data)
            guard stored == computed else {
                return (checks, "OriginalRawFileDigest \(RawDigest.hex(stored)) does not match OriginalRawFileData (\(RawDigest.hex(computed)))")
            }
            checks.append("OriginalRawFileDigest")
        }
        return (checks, nil)
    }
}
