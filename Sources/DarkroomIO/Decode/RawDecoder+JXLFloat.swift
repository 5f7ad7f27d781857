import DarkroomCore
import Foundation

/// JPEG XL (Compression 52546) and floating-point (SampleFormat 3) DNGs, which LibRaw 0.20 cannot
/// decode: pixels from `JXLDNGDecoder` / `FloatDNGDecoder`, metadata from our own DNG reader alone
/// (LibRaw is not opened).
extension RawDecoder {
    /// The raw IFD is JPEG XL or floating point: `decodeJXLOrFloatDNG` decodes it, or refuses it.
    static func isJXLOrFloat(_ layout: DNGRawDataLayout) -> Bool {
        layout.compression == JXLDNGDecoder.compression || layout.sampleFormat.contains(3)
    }

    /// Why a JPEG XL or floating-point raw IFD cannot be decoded; nil when it can.
    static func jxlOrFloatUnsupportedReason(_ layout: DNGRawDataLayout) -> String? {
        if layout.compression == JXLDNGDecoder.compression {
            return JXLDNGDecoder.unsupportedReason(layout).map { "JPEG XL DNG with \($0)" }
        }
        return FloatDNGDecoder.unsupportedReason(layout).map { "floating-point DNG with \($0)" }
    }

    /// The active area of a JPEG XL or floating-point DNG as a `RawImage`: OpcodeList1 applied to
    /// the whole stored image first (when asked), float samples mapped to 16 bits by
    /// `FloatDNGDecoder.quantise` with BlackLevel and WhiteLevel scaled to match.
    static func decodeJXLOrFloatDNG(path: String, metadata: RawMetadata, layout: DNGRawDataLayout,
                                    options: DecodeOptions) throws(DecodeError) -> RawImage {
        if let reason = jxlOrFloatUnsupportedReason(layout) { throw .unsupported(path: path, reason: reason) }
        var md = withFallbackProfile(metadata)
        guard layout.width == md.sensorWidth, layout.height == md.sensorHeight, layout.samplesPerPixel == md.samplesPerPixel,
              md.samplesPerPixel == 3 || md.cfa != nil else {
            throw .unsupported(path: path, reason: md.samplesPerPixel == 1 ? "DNG CFA layout is not a 2x2 Bayer pattern"
                                                                             : "raw IFD layout disagrees with its metadata")
        }
        let stored = PixelRect(x: 0, y: 0, width: md.sensorWidth, height: md.sensorHeight)
        let area = md.activeArea ?? stored
        guard !area.isEmpty, stored.contains(area) else {
            throw .corrupt(path: path, detail: "ActiveArea \(area) lies outside the \(md.sensorWidth)x\(md.sensorHeight) image")
        }
        try checkCompressedSize(layout, path: path)

        var pixels: [UInt16]
        let floats: [Float]?
        if layout.compression == JXLDNGDecoder.compression {
            switch try JXLDNGDecoder.decode(layout, threads: options.threads, path: path) {
            case .integer(let p): pixels = p; floats = nil
            case .float(let p): pixels = []; floats = p
            }
        } else {
            pixels = []
            floats = try FloatDNGDecoder.decode(layout, threads: options.threads, path: path)
        }
        if let floats {
            // The reader's default WhiteLevel is 2^bits − 1; a float DNG's is 1.0 (DNG 1.4).
            let bits = layout.bitsPerSample.first ?? 32
            if md.whiteLevel.allSatisfy({ $0 == Double((UInt64(1) << UInt64(min(bits, 32))) - 1) }) {
                md.whiteLevel = md.whiteLevel.map { _ in 1 }
            }
            let q = FloatDNGDecoder.quantise(floats, whiteLevel: md.whiteLevel)
            pixels = q.pixels
            md.whiteLevel = md.whiteLevel.map { $0 * q.scale }
            md.blackLevel = md.blackLevel.map { $0 * q.scale }
            md.blackLevelDeltaH = md.blackLevelDeltaH?.map { $0 * q.scale }
            md.blackLevelDeltaV = md.blackLevelDeltaV?.map { $0 * q.scale }
        }
        if options.applyOpcodeList1 && !(md.opcodeList1 ?? []).isEmpty {
            try applyOpcodeList1(&pixels, width: md.sensorWidth, height: md.sensorHeight, samplesPerPixel: md.samplesPerPixel,
                                 area: area, metadata: md, path: path)
        }
        pixels = crop(pixels, width: md.sensorWidth, spp: md.samplesPerPixel, to: area)
        md.fileFormat = "DNG"
        return RawImage(width: area.width, height: area.height, samplesPerPixel: md.samplesPerPixel, pixels: pixels, metadata: md)
    }

    /// Before anything is allocated: a file too small for its declared image by any plausible
    /// ratio (JPEG XL: 1/32 bit per sample; Deflate: zlib's ~1032:1) is refused. Uncompressed
    /// blocks are checked byte by byte by `FloatDNGDecoder`.
    private static func checkCompressedSize(_ layout: DNGRawDataLayout, path: String) throws(DecodeError) {
        let (area, o1) = layout.width.multipliedReportingOverflow(by: layout.height)
        let (samples, o2) = area.multipliedReportingOverflow(by: max(1, layout.samplesPerPixel))
        let size: Int? = try? InputFile.requireRegularFile(path)
        let minimum = o1 || o2 ? Int.max : layout.compression == JXLDNGDecoder.compression ? samples / 256 : samples / 1032
        if let size, size < minimum {
            throw .truncated(path: path, detail: "\(size) bytes cannot hold a \(layout.width)x\(layout.height) image (at least \(minimum) expected)")
        }
    }
}
