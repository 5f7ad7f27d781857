import DarkroomCore

/// How many decoded samples a file may claim, decided before any pixel is decoded (issue 20):
/// a small file must not make a decoder allocate a huge image.
///
/// Two limits, both from facts known before decoding:
/// - **Plausibility**: no codec stores a sample in less than a minimum number of bits, so a file
///   of `fileSize` bytes can hold at most `samplesPerByte × fileSize` samples of real data
///   (plus `floorSamples`, so small but valid images are never refused). The bounds are loose
///   for real files (typical raw data needs 8–50 times more bytes than the bound) and tight
///   enough that a 108 KB file cannot claim 256 megapixels.
/// - **Memory**: the decoded 16-bit samples alone must fit in `memoryLimit` bytes, when given.
public struct DecodeBudget: Sendable, Equatable {
    /// Samples allowed whatever the file size (4 Mi samples: 8 MiB decoded).
    public static let floorSamples = 1 << 22

    /// The least bits a codec spends per sample, as samples per byte of stored data.
    /// - uncompressed: 1-bit samples are the smallest DNG allows → 8 per byte;
    /// - lossless JPEG (DNG Compression 7, and proprietary lossless Huffman coders): each Huffman
    ///   code is ≥ 1 bit → 8 per byte (16 allows for a second sample sharing a code's byte);
    /// - Deflate (8): zlib's largest expansion is about 1032:1 on bytes, 2 bytes a sample → 516;
    /// - lossy JPEG (34892): an 8×8 block costs at least 2 bits (a DC code and an EOB) → 256
    ///   per byte; 64 is used: flat blocks that cheap do not occur in sensor data, and LibRaw
    ///   needs several times the decoded size while it decodes;
    /// - JPEG XL (52546): a modular or VarDCT stream of real sensor data needs ≥ 1/32 bit per
    ///   sample → 256;
    /// - other (proprietary RAW via LibRaw): 32.
    public static func samplesPerByte(compression: Int?) -> Int {
        switch compression {
        case 1?: return 8
        case 7?: return 16
        case 8?, 32946?: return 516
        case 34892?: return 64
        case 52546?: return 256
        default: return 32
        }
    }

    /// Largest number of decoded samples (width × height × samples per pixel) allowed.
    public let maxSamples: Int
    /// The plausibility bound alone (`maxSamples` may be lower because of the memory limit).
    public let plausibleSamples: Int
    public let fileSize: Int
    public let memoryLimit: Int64?

    public init(fileSize: Int, compression: Int?, memoryLimit: Int64? = nil) {
        let perByte = Self.samplesPerByte(compression: compression)
        let (scaled, overflow) = max(0, fileSize).multipliedReportingOverflow(by: perByte)
        plausibleSamples = overflow ? Int.max : max(Self.floorSamples, scaled)
        var limit = plausibleSamples
        if let memoryLimit, memoryLimit > 0 { limit = min(limit, Int(min(memoryLimit / 2, Int64(Int.max)))) }
        maxSamples = limit
        self.fileSize = fileSize
        self.memoryLimit = memoryLimit
    }

    /// Throws unless `width × height × samplesPerPixel` (overflow-checked) fits: `.truncated`
    /// when the file is too small to hold such an image (a partial copy, or a hostile size
    /// field), `.tooLarge` when it would not fit the memory limit.
    public func check(width: Int, height: Int, samplesPerPixel: Int, path: String) throws(DecodeError) {
        guard width > 0, height > 0, samplesPerPixel > 0 else {
            throw .corrupt(path: path, detail: "image size \(width)x\(height)x\(samplesPerPixel)")
        }
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (samples, o2) = area.multipliedReportingOverflow(by: samplesPerPixel)
        let declared = "\(width)x\(height)\(samplesPerPixel > 1 ? "x\(samplesPerPixel)" : "")"
        if o1 || o2 || samples > plausibleSamples {
            throw .truncated(path: path, detail: "\(fileSize) bytes cannot hold the \(declared) samples the file declares (at most \(plausibleSamples))")
        }
        if samples > maxSamples, let memoryLimit {
            throw .tooLarge(path: path, detail: "\(declared) samples need \(samples / 524_288) MiB decoded (2 bytes each); the memory limit is \(memoryLimit / 1_048_576) MiB")
        }
    }
}
