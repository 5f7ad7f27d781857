import DarkroomCore
import Foundation

/// Options that change how a file is decoded.
public struct DecodeOptions: Sendable, Equatable {
    /// Apply OpcodeList1 to the stored sensor values (DNG spec: before linearisation). Default true.
    public var applyOpcodeList1: Bool = true
    /// When set, the file is a headerless Bayer dump described by these parameters.
    public var bayerDump: BayerDumpParameters?
    /// Worker threads of decoders that use them (uncompressed, lossless-JPEG, JPEG XL and float DNG); 0 = one per
    /// active core.
    /// Changes speed, never pixels.
    public var threads: Int = 0
    /// Decode uncompressed DNG raw data with `UncompressedDNGDecoder`; false hands it to LibRaw
    /// like every other compression (for comparison). Default true.
    public var nativeUncompressed: Bool = true
    /// Decode lossless-JPEG DNG raw data (Compression 7) with `LosslessJPEGDecoder`; false hands
    /// it to LibRaw (single-threaded), for comparison. Default true.
    public var nativeLosslessJPEG: Bool = true
    /// Bytes the decoded samples may take at most (`--memory`); nil: only the file-size
    /// plausibility bound of `DecodeBudget` applies. Checked before anything is decoded.
    public var memoryLimit: Int64?
    public init(applyOpcodeList1: Bool = true, bayerDump: BayerDumpParameters? = nil, threads: Int = 0) {
        self.applyOpcodeList1 = applyOpcodeList1
        self.bayerDump = bayerDump
        self.threads = threads
    }
}

/// Chooses a decoder by the file's content (never its extension) and returns the active-area
/// mosaic with complete metadata.
///
/// - DNG (TIFF with DNGVersion): every DNG tag from our own TIFF reader (`DNGMetadataReader`);
///   pixels from `UncompressedDNGDecoder` when uncompressed and `LosslessJPEGDecoder` when
///   lossless JPEG, each within its scope, `JXLDNGDecoder` for JPEG XL and `FloatDNGDecoder` for
///   floating-point data (`RawDecoder+JXLFloat`, no LibRaw), else from LibRaw (every DNG compression LibRaw knows). ActiveArea is cropped after OpcodeList1 (without
///   OpcodeList1 the native decoder reads the ActiveArea alone).
/// - Any other RAW LibRaw reads: LibRaw's visible area, its per-site black, its single
///   D65 colour matrix (`cam_xyz`, stored as ColorMatrix1 with CalibrationIlluminant1 = D65) and
///   as-shot multipliers (as AsShotNeutral).
/// - Headerless Bayer dumps, when `options.bayerDump` is given (`BayerDumpDecoder`).
public enum RawDecoder {
    /// DNG Compression values LibRaw 0.20 decodes.
    static let supportedDNGCompressions: Set<Int> = [1, 7, 8, 34892]

    public static func decode(path: String, options: DecodeOptions = .init()) throws(DecodeError) -> RawImage {
        if let dump = options.bayerDump { return try BayerDumpDecoder.decode(path: path, parameters: dump) }
        let (bytes, fileSize) = try readHeader(path: path)
        var image: RawImage
        if let dng = try dngMetadata(bytes: bytes, path: path) {
            try checkDecodable(dng.metadata, layout: dng.layout, fileSize: fileSize, options: options, path: path)
            image = try decodeDNG(path: path, metadata: dng.metadata, layout: dng.layout, options: options)
        } else {
            let budget = DecodeBudget(fileSize: fileSize, compression: nil, memoryLimit: options.memoryLimit)
            image = try libRaw(path: path, bytes: bytes, unpack: true, budget: budget)
        }
        try checkPlausibleSize(image, path: path)
        // No white balance recorded: the same iterative grey world on near-neutral, unclipped
        // cells that `--wb auto` uses.
        if image.metadata.asShotNeutral == nil && image.metadata.asShotWhiteXY == nil,
           let neutral = WhiteBalanceEstimator(raw: image).autoNeutral() {
            let n = [neutral.x, neutral.y, neutral.z]
            image.metadata.asShotNeutral = n
            image.metadata.warnings.append("no white balance in file; using a grey-world estimate \(n.map { String(format: "%.4f", $0) }.joined(separator: " "))")
        }
        return image
    }

    /// Metadata only (no pixel decoding where avoidable), for `darkroom info`.
    public static func metadata(path: String, options: DecodeOptions = .init()) throws(DecodeError) -> RawMetadata {
        if let dump = options.bayerDump { return try BayerDumpDecoder.metadata(path: path, parameters: dump) }
        let (bytes, fileSize) = try readHeader(path: path)
        if let dngAndLayout = try dngMetadata(bytes: bytes, path: path) {
            let dng = dngAndLayout.metadata
            var md = withFallbackProfile(dng)
            do { try checkDecodable(dng, layout: dngAndLayout.layout, fileSize: fileSize, options: options, path: path) } catch {
                md.warnings.append("cannot be developed: \(error.description)")
            }
            return md
        }
        return try libRaw(path: path, bytes: bytes, unpack: false, budget: nil).metadata
    }

    /// LibRaw for a non-DNG file, as `libRawUnpacked` recognises it.
    private static func libRaw(path: String, bytes: [UInt8], unpack: Bool, budget: DecodeBudget?) throws(DecodeError) -> RawImage {
        try decodeLibRaw(libRawUnpacked(path: path, head: bytes, unpack: unpack, budget: budget), unpack: unpack)
    }

    /// The one answer to "is this a RAW" for a file that is not a DNG (`dngMetadata` returned
    /// nil), shared by `decode`, `metadata` and `DNGConverter`: LibRaw's identification decides,
    /// so headerless formats it knows by size (Kodak C330, QuickTake's "qktk") are RAWs. Only its
    /// "read past end of file" on content that starts like no RAW container becomes "not a RAW"
    /// (LibRaw reports tiny unrelated files as I/O errors).
    static func libRawUnpacked(path: String, head: [UInt8], unpack: Bool, budget: DecodeBudget?) throws(DecodeError) -> LibRawUnpacked {
        do { return try LibRawDecoder.unpack(path: path, unpackPixels: unpack, budget: budget) } catch {
            if case .truncated = error, !looksLikeRawContainer(head) {
                throw .notRaw(path: path, detail: "unrecognised content")
            }
            throw error
        }
    }

    /// Magic numbers of the RAW containers LibRaw reads (TIFF-based, CRW/CIFF, CR3/ISOBMFF, RAF,
    /// MRW, X3F, ORF, RW2, …).
    static func looksLikeRawContainer(_ b: [UInt8]) -> Bool {
        func starts(_ s: [UInt8], at o: Int = 0) -> Bool { b.count >= o + s.count && Array(b[o..<o + s.count]) == s }
        let ascii: (String) -> [UInt8] = { Array($0.utf8) }
        if starts([0x49, 0x49]) || starts([0x4D, 0x4D]) { return true }         // TIFF, ORF, RW2, CRW, DNG, …
        if starts(ascii("ftyp"), at: 4) { return true }                      // CR3
        for m in ["FUJIFILM", "FOVb", "ARRI", "RIFF", "BR", "\0MRM", "PWAD", "DSC-Image", "AVT", "BM"] where starts(ascii(m)) { return true }
        if starts([0x00, 0x4D, 0x52, 0x4D]) { return true }                  // MRW
        return false
    }

    // MARK: - Steps

    /// Some LibRaw loaders read past the end of a truncated file without an error and return
    /// zeros. No lossless raw codec stores less than half a bit per sample (lossless JPEG needs at
    /// least one: each Huffman code is ≥ 1 bit), so a file smaller
    /// than that for its decoded size is truncated (never a partial image).
    private static func checkPlausibleSize(_ image: RawImage, path: String) throws(DecodeError) {
        try checkPlausibleSize(width: image.metadata.sensorWidth, height: image.metadata.sensorHeight,
                               samplesPerPixel: image.samplesPerPixel, compression: image.metadata.compression, path: path)
    }

    /// The same check from the declared size, before anything is decoded (a product that
    /// overflows `Int` cannot be held by any file).
    private static func checkPlausibleSize(width: Int, height: Int, samplesPerPixel: Int, compression: Int?,
                                           path: String) throws(DecodeError) {
        if compression == 34892 { return }   // lossy JPEG DNGs may go below that
        if compression == 52546 || compression == 8 { return }   // JPEG XL, Deflate: checked by RawDecoder+JXLFloat
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (samples, o2) = area.multipliedReportingOverflow(by: samplesPerPixel)
        let minimum = o1 || o2 ? Int.max : samples / 16
        let size: Int? = try? InputFile.requireRegularFile(path)
        if let size, size < minimum {
            throw .truncated(path: path, detail: "\(size) bytes cannot hold a \(width)x\(height) image (at least \(minimum) expected)")
        }
    }

    /// Everything that decides, before LibRaw or a native decoder sees the file, whether a DNG
    /// can be decoded: a supported format; a declared image within the decode budget (file size
    /// per compression, and the memory limit); well-formed opcode lists (LibRaw loops for hours
    /// on a list whose count claims 4 billion opcodes). `decode` throws what `metadata` reports.
    private static func checkDecodable(_ md: RawMetadata, layout: DNGRawDataLayout?, fileSize: Int, options: DecodeOptions,
                                       path: String) throws(DecodeError) {
        try checkDNGSupported(md, layout: layout, path: path)
        try DecodeBudget(fileSize: fileSize, compression: md.compression, memoryLimit: options.memoryLimit)
            .check(width: md.sensorWidth, height: md.sensorHeight, samplesPerPixel: md.samplesPerPixel, path: path)
        try checkOpcodeListStructure(md, path: path)
    }

    /// OpcodeList1/2/3 whose record structure (count, sizes) is broken make the file corrupt,
    /// whatever `--opcodes` says: LibRaw parses these tags too, and a count claiming billions
    /// of opcodes makes it loop for hours. Parameter errors are left to the develop plan.
    private static func checkOpcodeListStructure(_ md: RawMetadata, path: String) throws(DecodeError) {
        for (index, bytes) in [(1, md.opcodeList1), (2, md.opcodeList2), (3, md.opcodeList3)] {
            guard let bytes, !bytes.isEmpty else { continue }
            do { _ = try OpcodeList.parse(bytes) } catch {
                switch error {
                case .truncated, .countTooLarge, .trailingBytes, .sizeMismatch:
                    throw .corrupt(path: path, detail: "OpcodeList\(index): \(error.description)")
                default: continue
                }
            }
        }
    }

    /// Returns the first 64 KiB of a regular file (magic numbers, IFD0) and the file's size.
    static func readHeader(path: String) throws(DecodeError) -> (head: [UInt8], size: Int) {
        let size = try InputFile.requireRegularFile(path)
        // Only the head is read here (magic numbers, IFD0); DNG tags are read from a memory map
        // and pixels by LibRaw, so no copy of the whole file is made.
        guard let fh = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? fh.close() }
        let head: Data
        do { head = try fh.read(upToCount: 65536) ?? Data() } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard !head.isEmpty else { throw .truncated(path: path, detail: "file is empty") }
        return ([UInt8](head), size)
    }

    /// Our own TIFF reader's view (metadata and the raw IFD's data layout), when the file is a
    /// DNG; nil when it is not TIFF-based or has no DNGVersion.
    static func dngMetadata(bytes: [UInt8], path: String) throws(DecodeError) -> (metadata: RawMetadata, layout: DNGRawDataLayout?)? {
        guard bytes.count >= 8 else {
            // Too short for any header: truncated if it starts like a TIFF, else not an image
            // (the same answer for every command).
            if bytes.starts(with: [0x49, 0x49]) || bytes.starts(with: [0x4D, 0x4D]) {
                throw .truncated(path: path, detail: "\(bytes.count) bytes")
            }
            throw .notRaw(path: path, detail: "unrecognised content (\(bytes.count) bytes)")
        }
        let tiff = (bytes[0] == 0x49 && bytes[1] == 0x49 && bytes[2] == 42 && bytes[3] == 0) ||
            (bytes[0] == 0x4D && bytes[1] == 0x4D && bytes[2] == 0 && bytes[3] == 42)
        guard tiff else { return nil }
        do {
            let dng = try DNGMetadataReader.readForDecoding(contentsOf: path)
            return dng.metadata.dngVersion != nil ? dng : nil
        } catch {
            // A TIFF we cannot parse: a damaged DNG, or another TIFF-based RAW LibRaw may still read.
            if hasDNGVersionTag(bytes) {
                let reason = error.underlying.description
                switch error.underlying {
                case .truncated, .shrankWhileReading: throw .truncated(path: path, detail: reason)
                default: break
                }
                throw .corrupt(path: path, detail: reason)
            }
            return nil
        }
    }

    /// Cheap scan of IFD0 for tag 50706 (DNGVersion), used only to word an error.
    private static func hasDNGVersionTag(_ b: [UInt8]) -> Bool {
        let r = ByteReader(bytes: b, bigEndian: b.first != 0x49)
        func u16(_ o: Int) -> Int? { (try? r.u16(o)).map(Int.init) }
        func u32(_ o: Int) -> Int? { (try? r.u32(o)).map(Int.init) }
        guard let ifd = u32(4), let n = u16(ifd), n < 4096 else { return false }
        for i in 0..<n { if u16(ifd + 2 + i * 12) == 50706 { return true } }
        return false
    }

    /// A DNG without ColorMatrix1/2 (some Raspberry Pi writers) gets the documented fallback:
    /// camera RGB treated as linear sRGB, with a warning.
    static func withFallbackProfile(_ md: RawMetadata) -> RawMetadata {
        guard md.profile?.colorMatrix1 == nil && md.profile?.colorMatrix2 == nil else { return md }
        var m = md
        var p = m.profile ?? CameraProfile()
        p.name = "none (camera treated as linear sRGB)"
        p.calibrationIlluminant1 = 21
        p.colorMatrix1 = BayerDumpDecoder.linearSRGBAsCamera
        p.forwardMatrix1 = nil; p.forwardMatrix2 = nil
        m.profile = p
        m.warnings.append("file has no ColorMatrix; camera RGB treated as linear sRGB")
        return m
    }

    private static func checkDNGSupported(_ md: RawMetadata, layout: DNGRawDataLayout?, path: String) throws(DecodeError) {
        // JPEG XL and floating point: JXLDNGDecoder / FloatDNGDecoder (RawDecoder+JXLFloat).
        if let layout, isJXLOrFloat(layout) {
            if let reason = jxlOrFloatUnsupportedReason(layout) { throw .unsupported(path: path, reason: reason) }
            return
        }
        if md.bitsPerSample > 16 {
            throw .unsupported(path: path, reason: "\(md.bitsPerSample)-bit (floating-point) DNG samples")
        }
        if let c = md.compression, !supportedDNGCompressions.contains(c) {
            let name: String
            switch c {
            case 9: name = "GoPro VC-5 (Compression 9)"
            case 52546: name = "JPEG XL (Compression 52546)"
            default: name = "Compression \(c)"
            }
            throw .unsupported(path: path, reason: "DNG with \(name) cannot be decoded by LibRaw")
        }
        if md.samplesPerPixel != 1 && md.samplesPerPixel != 3 {
            throw .unsupported(path: path, reason: "DNG with \(md.samplesPerPixel) samples per pixel")
        }
        if md.samplesPerPixel == 1 && md.cfa == nil {
            throw .unsupported(path: path, reason: "DNG CFA layout is not a 2x2 Bayer pattern")
        }
    }

    private static func decodeDNG(path: String, metadata: RawMetadata, layout: DNGRawDataLayout?,
                                  options: DecodeOptions) throws(DecodeError) -> RawImage {
        // JPEG XL and floating point: JXLDNGDecoder / FloatDNGDecoder (RawDecoder+JXLFloat).
        if let layout, isJXLOrFloat(layout) {
            return try decodeJXLOrFloatDNG(path: path, metadata: metadata, layout: layout, options: options)
        }
        // (`checkDecodable` has run.)
        if let layout {
            let native: NativeDecoder? =
                options.nativeUncompressed && UncompressedDNGDecoder.unsupportedReason(layout) == nil ? .uncompressed
                : options.nativeLosslessJPEG && LosslessJPEGDecoder.unsupportedReason(layout) == nil ? .losslessJPEG : nil
            if let native, let image = try decodeNativeDNG(native, path: path, metadata: metadata, layout: layout, options: options) {
                return image
            }
        }
        return try decodeDNGWithLibRaw(path: path, metadata: metadata, options: options)
    }

    /// The native DNG pixel decoders.
    private enum NativeDecoder { case uncompressed, losslessJPEG }

    /// A native decoder's error, and whether LibRaw may still read the file.
    private struct NativeFailure: Error {
        var error: DecodeError
        var libRawMayRead: Bool
    }

    /// The stored samples of `region` from a native decoder.
    private static func nativePixels(_ decoder: NativeDecoder, layout: DNGRawDataLayout, region: PixelRect, threads: Int,
                                     path: String) throws(NativeFailure) -> [UInt16] {
        switch decoder {
        case .uncompressed:
            do { return try UncompressedDNGDecoder.decode(layout, region: region, threads: threads, path: path) } catch {
                // LibRaw reads strips as one run of rows from the first StripOffsets value and
                // ignores RowsPerStrip and the byte counts, so it may accept strips this strict
                // check refuses. (LibRaw 0.20 cannot read several uncompressed tiles.)
                var isStrips = false
                if case .strips = layout.blocks { isStrips = true }
                throw NativeFailure(error: error, libRawMayRead: isStrips)
            }
        case .losslessJPEG:
            do { return try LosslessJPEGDecoder.decode(layout, region: region, threads: threads, path: path) } catch {
                // A header or layout LibRaw may still read; a damaged entropy-coded segment is refused.
                switch error {
                case .invalidLayout(let e): throw NativeFailure(error: e, libRawMayRead: true)
                case .invalidData(let e): throw NativeFailure(error: e, libRawMayRead: false)
                }
            }
        }
    }

    /// Pixels from a native decoder, metadata exactly as `decodeDNGWithLibRaw` makes it
    /// (LibRaw's EXIF is still merged: LibRaw is opened without unpacking). Nil when LibRaw sees
    /// another image size or sample count than the DNG declares: that case keeps LibRaw's handling.
    /// When the native decoder refuses the data but LibRaw may read it (`NativeFailure`), LibRaw's
    /// result is kept with a warning; if LibRaw fails too, the native error is thrown.
    private static func decodeNativeDNG(_ decoder: NativeDecoder, path: String, metadata: RawMetadata, layout: DNGRawDataLayout,
                                        options: DecodeOptions) throws(DecodeError) -> RawImage? {
        var md = withFallbackProfile(metadata)
        let u = try libRawDNG(path: path, metadata: md, unpackPixels: false)
        let stored = PixelRect(x: 0, y: 0, width: md.sensorWidth, height: md.sensorHeight)
        guard u.samplesPerPixel == md.samplesPerPixel, u.rawWidth == md.sensorWidth, u.rawHeight == md.sensorHeight,
              layout.width == md.sensorWidth, layout.height == md.sensorHeight, layout.samplesPerPixel == md.samplesPerPixel
        else { return nil }
        let area = md.activeArea ?? stored
        guard !area.isEmpty, stored.contains(area) else {
            throw .corrupt(path: path, detail: "ActiveArea \(area) lies outside the \(md.sensorWidth)x\(md.sensorHeight) image")
        }
        // Before allocating: the size check `decode` applies to every result.
        try checkPlausibleSize(width: md.sensorWidth, height: md.sensorHeight, samplesPerPixel: md.samplesPerPixel,
                               compression: md.compression, path: path)
        let opcodes = options.applyOpcodeList1 && !(md.opcodeList1 ?? []).isEmpty
        var pixels: [UInt16]
        do {
            pixels = try nativePixels(decoder, layout: layout, region: opcodes ? stored : area, threads: options.threads, path: path)
        } catch let failure {
            let nativeError = failure.error
            guard failure.libRawMayRead else { throw nativeError }
            // Outside the native decoder's scope (another JPEG process, say): LibRaw's, silently.
            if case .unsupported = nativeError { return nil }
            do {
                var image = try decodeDNGWithLibRaw(path: path, metadata: metadata, options: options)
                let reason: String
                switch nativeError {
                case .corrupt(_, let detail), .truncated(_, let detail), .unsupported(_, let detail): reason = detail
                default: reason = nativeError.description
                }
                image.metadata.warnings.append(decoder == .uncompressed ? "\(reason); strips read by LibRaw as one run of rows"
                                                                         : "\(reason); read by LibRaw")
                return image
            } catch _ {
                throw nativeError
            }
        }
        if opcodes {
            try applyOpcodeList1(&pixels, width: md.sensorWidth, height: md.sensorHeight, samplesPerPixel: md.samplesPerPixel,
                                 area: area, metadata: md, path: path)
            pixels = crop(pixels, width: md.sensorWidth, spp: md.samplesPerPixel, to: area)
        }
        mergeExif(from: u.exif, into: &md.exif)
        md.fileFormat = "DNG"
        return RawImage(width: area.width, height: area.height, samplesPerPixel: md.samplesPerPixel, pixels: pixels, metadata: md)
    }

    /// LibRaw for a DNG; its "not a RAW" becomes "LibRaw cannot decode this DNG's image data".
    private static func libRawDNG(path: String, metadata md: RawMetadata, unpackPixels: Bool) throws(DecodeError) -> LibRawUnpacked {
        do { return try LibRawDecoder.unpack(path: path, unpackPixels: unpackPixels) } catch {
            if case .notRaw = error {
                throw .unsupported(path: path, reason: "LibRaw cannot decode this DNG's image data (\(md.samplesPerPixel == 1 ? "CFA" : "LinearRaw"), \(md.bitsPerSample)-bit, compression \(md.compression ?? 1))")
            }
            throw error
        }
    }

    /// OpcodeList1 on the whole stored image (`OpcodeList.applyRaw`), the CFA seen from its origin.
    static func applyOpcodeList1(_ pixels: inout [UInt16], width: Int, height: Int, samplesPerPixel: Int,
                                         area: PixelRect, metadata md: RawMetadata, path: String) throws(DecodeError) {
        guard let bytes = md.opcodeList1, !bytes.isEmpty else { return }
        do {
            let list = try OpcodeList.parse(bytes)
            let storedCFA = md.cfa?.shifted(dx: -area.x, dy: -area.y)
            try list.applyRaw(to: &pixels, width: width, height: height, planes: samplesPerPixel,
                              cfa: storedCFA, whiteLevel: Int(md.whiteLevel.first ?? 65535))
        } catch {
            throw .corrupt(path: path, detail: "OpcodeList1: \(error.description)")
        }
    }

    private static func decodeDNGWithLibRaw(path: String, metadata: RawMetadata, options: DecodeOptions) throws(DecodeError) -> RawImage {
        var md = withFallbackProfile(metadata)
        var u = try libRawDNG(path: path, metadata: md, unpackPixels: true)
        guard u.samplesPerPixel == md.samplesPerPixel else {
            throw .unsupported(path: path, reason: "LibRaw decoded \(u.samplesPerPixel) samples per pixel, the DNG declares \(md.samplesPerPixel)")
        }
        var area = md.activeArea ?? PixelRect(x: 0, y: 0, width: md.sensorWidth, height: md.sensorHeight)
        if u.rawWidth != md.sensorWidth || u.rawHeight != md.sensorHeight {
            // LibRaw already cropped (or padded): fall back to its visible area.
            md.warnings.append("LibRaw decoded \(u.rawWidth)x\(u.rawHeight), the DNG stores \(md.sensorWidth)x\(md.sensorHeight); using LibRaw's image area")
            area = u.visible
            if let cfa = u.cfa { md.cfa = cfa }
        }
        guard !area.isEmpty, PixelRect(x: 0, y: 0, width: u.rawWidth, height: u.rawHeight).contains(area) else {
            throw .corrupt(path: path, detail: "ActiveArea \(area) lies outside the \(u.rawWidth)x\(u.rawHeight) image")
        }
        if options.applyOpcodeList1 {
            try applyOpcodeList1(&u.pixels, width: u.rawWidth, height: u.rawHeight, samplesPerPixel: u.samplesPerPixel,
                                 area: area, metadata: md, path: path)
        }
        if md.compression == 34892 { adjustForLibRawLossyDecode(&md) }
        let pixels = crop(u.pixels, width: u.rawWidth, spp: u.samplesPerPixel, to: area)
        mergeExif(from: u.exif, into: &md.exif)
        md.fileFormat = "DNG"
        return RawImage(width: area.width, height: area.height, samplesPerPixel: u.samplesPerPixel,
                        pixels: pixels, metadata: md)
    }

    /// LibRaw decodes lossy-JPEG DNGs (Compression 34892) to the full 16-bit range and applies the
    /// OpcodeList2 MapPolynomial curves itself while doing so. Rescale the levels to that range and
    /// drop the MapPolynomials so they are not applied twice.
    private static func adjustForLibRawLossyDecode(_ md: inout RawMetadata) {
        let white = md.whiteLevel.first ?? 255
        guard white > 0, white < 65535 else { return }
        let scale = 65535 / white
        md.blackLevel = md.blackLevel.map { $0 * scale }
        md.whiteLevel = md.whiteLevel.map { _ in 65535 }
        if let bytes = md.opcodeList2, var list = try? OpcodeList.parse(bytes) {
            let before = list.opcodes.count
            list.opcodes.removeAll { if case .mapPolynomial = $0 { return true } else { return false } }
            if list.opcodes.count != before {
                md.opcodeList2 = list.opcodes.isEmpty ? nil : list.encode()
                md.warnings.append("lossy JPEG DNG: LibRaw applied the OpcodeList2 MapPolynomial curves while decoding")
            }
        }
    }

    private static func decodeLibRaw(_ u: LibRawUnpacked, unpack: Bool) -> RawImage {
        let md = libRawMetadata(u)
        if !unpack {
            return RawImage(width: 0, height: 0, samplesPerPixel: u.samplesPerPixel, pixels: [], metadata: md)
        }
        let pixels = crop(u.pixels, width: u.rawWidth, spp: u.samplesPerPixel, to: u.visible)
        return RawImage(width: u.visible.width, height: u.visible.height, samplesPerPixel: u.samplesPerPixel,
                        pixels: pixels, metadata: md)
    }

    /// The metadata of a LibRaw-read (non-DNG) RAW: stored size, visible area as ActiveArea,
    /// per-site black, `cam_xyz` as ColorMatrix1 (D65), as-shot (else daylight) multipliers as
    /// AsShotNeutral. Shared by `decode` and `DNGConverter`.
    static func libRawMetadata(_ u: LibRawUnpacked) -> RawMetadata {
        var md = RawMetadata()
        md.fileFormat = u.formatName
        md.exif = u.exif
        md.sensorWidth = u.rawWidth
        md.sensorHeight = u.rawHeight
        md.activeArea = u.visible
        md.samplesPerPixel = u.samplesPerPixel
        md.cfa = u.cfa
        md.bitsPerSample = 16
        if u.samplesPerPixel == 1 {
            md.blackLevelRepeatRows = 2
            md.blackLevelRepeatColumns = 2
            md.blackLevel = u.blackPerSite
        } else {
            md.blackLevel = [u.blackPerSite[0]]
        }
        md.whiteLevel = [u.maximum > 0 ? u.maximum : 65535]
        switch u.flip {
        case 3: md.orientation = 3
        case 5: md.orientation = 8
        case 6: md.orientation = 6
        default: md.orientation = 1
        }
        var profile = CameraProfile()
        profile.name = "LibRaw (Adobe D65 matrix)"
        profile.calibrationIlluminant1 = 21
        if let m = u.xyzToCamera, m.inverse != nil {
            profile.colorMatrix1 = m
        } else if let m = u.cameraToLinearSRGB, let xyzToCamera = libRawRGBCamAsColorMatrix(m, daylightMultipliers: u.daylightMultipliers) {
            profile.colorMatrix1 = xyzToCamera
            profile.name = "LibRaw rgb_cam (LibRaw's camera table or the file's maker data; no Adobe matrix)"
        } else {
            profile.colorMatrix1 = BayerDumpDecoder.linearSRGBAsCamera
            profile.name = "none (camera treated as linear sRGB)"
            md.warnings.append("no colour matrix for this camera; camera RGB treated as linear sRGB")
        }
        md.profile = profile
        // As-shot multipliers; else the camera's daylight multipliers (LibRaw pre_mul).
        for (mul, source) in [(u.cameraMultipliers, "as-shot"), (u.daylightMultipliers, "daylight")]
        where md.asShotNeutral == nil && mul.allSatisfy({ $0 > 0 && $0.isFinite }) {
            let n = mul.map { 1 / $0 }
            let mx = n.max() ?? 1
            md.asShotNeutral = n.map { $0 / mx }
            if source == "daylight" { md.warnings.append("no as-shot white balance in file; using the camera's daylight multipliers") }
        }
        return md
    }

    /// LibRaw's `rgb_cam` as a D65 ColorMatrix (XYZ → camera). `rgb_cam` maps camera RGB scaled
    /// by the daylight multipliers `pre_mul` to linear sRGB (dcraw's `convert_to_rgb`), so
    /// camera → XYZ(D65) = sRGB→XYZ · rgb_cam · diag(pre_mul), and the ColorMatrix is its inverse,
    /// diag(1/pre_mul) · rgb_cam⁻¹ · XYZ→sRGB. (Its scale does not matter: the DNG colour model
    /// normalises the matrix by the white it maps.) Unknown multipliers count as 1.
    static func libRawRGBCamAsColorMatrix(_ rgbCam: Matrix3, daylightMultipliers pm: [Double]) -> Matrix3? {
        guard let camFromSRGB = rgbCam.inverse else { return nil }
        let known = pm.count == 3 && pm.allSatisfy { $0 > 0 && $0.isFinite }
        let inverseGains = known ? SIMD3(1 / pm[0], 1 / pm[1], 1 / pm[2]) : SIMD3<Double>(1, 1, 1)
        let m = Matrix3.diagonal(inverseGains) * camFromSRGB * BayerDumpDecoder.linearSRGBAsCamera
        return m.inverse == nil ? nil : m
    }

    static func crop(_ pixels: [UInt16], width: Int, spp: Int, to r: PixelRect) -> [UInt16] {
        if r.x == 0 && r.y == 0 && r.width == width && r.height * width * spp == pixels.count { return pixels }
        var out = [UInt16](repeating: 0, count: r.width * r.height * spp)
        out.withUnsafeMutableBufferPointer { dst in
            pixels.withUnsafeBufferPointer { src in
                for y in 0..<r.height {
                    (dst.baseAddress! + y * r.width * spp).update(
                        from: src.baseAddress! + ((r.y + y) * width + r.x) * spp, count: r.width * spp)
                }
            }
        }
        return out
    }

    private static func mergeExif(from l: ExifInfo, into e: inout ExifInfo) {
        e.make = e.make ?? l.make
        e.model = e.model ?? l.model
        e.lensMake = e.lensMake ?? l.lensMake
        e.lensModel = e.lensModel ?? l.lensModel
        e.dateTimeOriginal = e.dateTimeOriginal ?? l.dateTimeOriginal
        e.exposureTime = e.exposureTime ?? l.exposureTime
        e.fNumber = e.fNumber ?? l.fNumber
        e.isoSpeed = e.isoSpeed ?? l.isoSpeed
        e.focalLength = e.focalLength ?? l.focalLength
        e.focalLengthIn35mm = e.focalLengthIn35mm ?? l.focalLengthIn35mm
        e.artist = e.artist ?? l.artist
    }
}
