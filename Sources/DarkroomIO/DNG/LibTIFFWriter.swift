import CShims
import CTIFF
import Glibc

/// The one libtiff wrapper: a handle on a file being written (DNGs), on a TIFF being built in
/// memory (TIFF outputs and stage dumps: `inMemory`, `finish(strips:…)`) or on TIFF bytes being
/// read (`reading`, the inspector), with one error path: every libtiff return code goes through
/// `check`, which turns it into `TIFFError.writeFailed` carrying libtiff's last message
/// (captured by the CShims handlers instead of being printed).
///
/// Values are passed to libtiff's variadic setter according to the field's own description
/// (`TIFFFieldWithTag`: pass-count, write count, storage size), so the code does not depend on
/// which DNG tags a given libtiff version knows; tags it lacks are registered with
/// `TIFFMergeFieldInfo` (again after each directory, because libtiff resets its field table).
struct LibTIFFWriter: ~Copyable {
    private let tif: OpaquePointer
    /// The in-memory buffer's state (`dr_enc_tiff_open_memory`), for memory handles.
    private let memory: UnsafeMutableRawPointer?
    /// The bytes a reading handle reads in place (owned, freed with the handle).
    private let input: UnsafeMutableBufferPointer<UInt8>?

    private init(tif: OpaquePointer, memory: UnsafeMutableRawPointer? = nil, input: UnsafeMutableBufferPointer<UInt8>? = nil) {
        self.tif = tif; self.memory = memory; self.input = input
    }

    /// Creates (truncates) `path` for writing.
    static func open(path: String) throws(TIFFError) -> LibTIFFWriter {
        dr_tiff_install_handlers()
        dr_tiff_clear_error()
        guard let t = TIFFOpen(path, "w") else { throw .writeFailed(reason: lastError(or: "TIFFOpen failed")) }
        let writer = LibTIFFWriter(tif: t)
        try writer.registerMissingFields()
        return writer
    }

    /// A new, empty TIFF in memory for writing; `finish(strips:…)` or `writtenBytes` give its bytes.
    static func inMemory() throws(TIFFError) -> LibTIFFWriter {
        dr_tiff_install_handlers()
        dr_tiff_clear_error()
        var state: UnsafeMutableRawPointer?
        guard let t = dr_enc_tiff_open_memory(nil, 0, 1, &state) else {
            throw .writeFailed(reason: "TIFFClientOpen: \(lastError(or: "cannot open a memory TIFF"))")
        }
        return LibTIFFWriter(tif: t, memory: state)
    }

    /// A handle reading `bytes` (copied once; libtiff reads the copy in place).
    static func reading(_ bytes: [UInt8]) throws(TIFFError) -> LibTIFFWriter {
        dr_tiff_install_handlers()
        dr_tiff_clear_error()
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = copy.initialize(from: bytes)
        var state: UnsafeMutableRawPointer?
        guard let t = dr_enc_tiff_open_memory(copy.baseAddress, bytes.count, 0, &state) else {
            copy.deallocate()
            throw .unreadable(reason: lastError(or: "not a TIFF libtiff can open"))
        }
        return LibTIFFWriter(tif: t, memory: state, input: copy)
    }

    deinit {
        TIFFClose(tif)
        dr_enc_tiff_memory_free(memory)
        input?.deallocate()
    }

    /// Flushes and closes; throws if the flush failed.
    consuming func close() throws(TIFFError) {
        let ok = TIFFFlush(tif)
        TIFFClose(tif)
        dr_enc_tiff_memory_free(memory)
        input?.deallocate()
        discard self
        try Self.check(ok, "flush")
    }

    /// The libtiff handle, for reads this wrapper does not cover (scanlines).
    var handle: OpaquePointer { tif }

    static func lastError(or fallback: String) -> String {
        let message = String(cString: dr_tiff_last_error())
        return message.isEmpty ? fallback : message
    }

    static func check(_ ok: Int32, _ what: String) throws(TIFFError) {
        guard ok != 0 else { throw .writeFailed(reason: failure(what, errno: errno, fallback: "libtiff error")) }
    }

    /// The system's causes a user acts on, named first when a failing write left one in `errno`
    /// (libtiff's own text for a full disk is "TIFFAppendToStrip: Write error at scanline
    /// 4294967295"). EACCES only where `errno` was cleared just before the call.
    static let namedCauses: Set<Int32> = [ENOSPC, EDQUOT, EFBIG, EIO, EROFS]

    /// "WHAT: No space left on device (libtiff's message)" when `e` is one of `namedCauses` (or
    /// `alsoNamed`), else "WHAT: libtiff's message".
    static func failure(_ what: String, errno e: Int32, fallback: String, alsoNamed: Set<Int32> = []) -> String {
        let message = lastError(or: fallback)
        guard namedCauses.contains(e) || alsoNamed.contains(e) else { return "\(what): \(message)" }
        return "\(what): \(String(cString: strerror(e))) (\(message))"
    }

    // MARK: - Fields

    /// A value for a TIFF field, converted to what the field's libtiff definition expects.
    enum Value {
        case ints([UInt32])
        case reals([Double])
        case bytes([UInt8])
        case ascii(String)
    }

    /// DNG/EXIF tags that may be missing from libtiff 4.5's tables: (tag, type, count, pass-count, name).
    private static let customFields: [(UInt32, TIFFDataType, Int16, Bool, StaticString)] = [
        (UInt32(TIFFTag.forwardMatrix1), TIFF_SRATIONAL, -1, true, "ForwardMatrix1"),
        (UInt32(TIFFTag.forwardMatrix2), TIFF_SRATIONAL, -1, true, "ForwardMatrix2"),
        (UInt32(TIFFTag.profileName), TIFF_ASCII, -1, false, "ProfileName"),
        (UInt32(TIFFTag.cameraCalibrationSignature), TIFF_ASCII, -1, false, "CameraCalibrationSignature"),
        (UInt32(TIFFTag.opcodeList1), TIFF_UNDEFINED, -3, true, "OpcodeList1"),
        (UInt32(TIFFTag.opcodeList2), TIFF_UNDEFINED, -3, true, "OpcodeList2"),
        (UInt32(TIFFTag.opcodeList3), TIFF_UNDEFINED, -3, true, "OpcodeList3"),
        (UInt32(TIFFTag.noiseProfile), TIFF_DOUBLE, -1, true, "NoiseProfile"),
        (UInt32(TIFFTag.dateTimeOriginal), TIFF_ASCII, -1, false, "DateTimeOriginal"),
        (UInt32(TIFFTag.baselineExposureOffset), TIFF_SRATIONAL, 1, false, "BaselineExposureOffset"),
        (UInt32(TIFFTag.calibrationIlluminant3), TIFF_SHORT, 1, false, "CalibrationIlluminant3"),
        (UInt32(TIFFTag.cameraCalibration3), TIFF_SRATIONAL, -1, true, "CameraCalibration3"),
        (UInt32(TIFFTag.colorMatrix3), TIFF_SRATIONAL, -1, true, "ColorMatrix3"),
        (UInt32(TIFFTag.forwardMatrix3), TIFF_SRATIONAL, -1, true, "ForwardMatrix3"),
        (UInt32(TIFFTag.illuminantData1), TIFF_UNDEFINED, -3, true, "IlluminantData1"),
        (UInt32(TIFFTag.illuminantData2), TIFF_UNDEFINED, -3, true, "IlluminantData2"),
        (UInt32(TIFFTag.illuminantData3), TIFF_UNDEFINED, -3, true, "IlluminantData3"),
        (UInt32(TIFFTag.profileHueSatMapDims), TIFF_LONG, 3, false, "ProfileHueSatMapDims"),
        (UInt32(TIFFTag.profileHueSatMapData1), TIFF_FLOAT, -1, true, "ProfileHueSatMapData1"),
        (UInt32(TIFFTag.profileHueSatMapData2), TIFF_FLOAT, -1, true, "ProfileHueSatMapData2"),
        (UInt32(TIFFTag.profileHueSatMapData3), TIFF_FLOAT, -1, true, "ProfileHueSatMapData3"),
        (UInt32(TIFFTag.profileHueSatMapEncoding), TIFF_LONG, 1, false, "ProfileHueSatMapEncoding"),
        // Capture facts in IFD0 (TIFF/EP; the DNG SDK reads them there) and the DNG digest tags.
        (UInt32(TIFFTag.exposureTime), TIFF_RATIONAL, 1, false, "ExposureTime"),
        (UInt32(TIFFTag.fNumber), TIFF_RATIONAL, 1, false, "FNumber"),
        (UInt32(TIFFTag.isoSpeedRatings), TIFF_SHORT, -1, true, "ISOSpeedRatings"),
        (UInt32(TIFFTag.focalLength), TIFF_RATIONAL, 1, false, "FocalLength"),
        (UInt32(TIFFTag.focalLengthIn35mmFilm), TIFF_SHORT, 1, false, "FocalLengthIn35mmFilm"),
        (UInt32(TIFFTag.lensMake), TIFF_ASCII, -1, false, "LensMake"),
        (UInt32(TIFFTag.lensModel), TIFF_ASCII, -1, false, "LensModel"),
        (UInt32(TIFFTag.rawImageDigest), TIFF_BYTE, 16, false, "RawImageDigest"),
        (UInt32(TIFFTag.newRawImageDigest), TIFF_BYTE, 16, false, "NewRawImageDigest"),
        (UInt32(TIFFTag.originalRawFileDigest), TIFF_BYTE, 16, false, "OriginalRawFileDigest"),
        (UInt32(TIFFTag.originalRawFileName), TIFF_ASCII, -1, false, "OriginalRawFileName"),
        (UInt32(TIFFTag.originalRawFileData), TIFF_UNDEFINED, -3, true, "OriginalRawFileData"),
        (UInt32(TIFFTag.rowInterleaveFactor), TIFF_SHORT, 1, false, "RowInterleaveFactor"),
        (UInt32(TIFFTag.columnInterleaveFactor), TIFF_SHORT, 1, false, "ColumnInterleaveFactor"),
        (UInt32(TIFFTag.jxlDistance), TIFF_FLOAT, 1, false, "JXLDistance"),
        (UInt32(TIFFTag.jxlEffort), TIFF_LONG, 1, false, "JXLEffort"),
    ]

    /// Registers the custom fields libtiff does not already know for the current directory.
    func registerMissingFields() throws(TIFFError) {
        var infos: [TIFFFieldInfo] = []
        for (tag, type, count, pass, name) in Self.customFields where TIFFFieldWithTag(tif, tag) == nil {
            // Names are static strings: libtiff keeps the pointer, which stays valid forever.
            let namePointer = UnsafeMutableRawPointer(mutating: name.utf8Start).assumingMemoryBound(to: CChar.self)
            infos.append(TIFFFieldInfo(field_tag: tag, field_readcount: count, field_writecount: count,
                                       field_type: type, field_bit: UInt16(FIELD_CUSTOM), field_oktochange: 1,
                                       field_passcount: pass ? 1 : 0, field_name: namePointer))
        }
        guard !infos.isEmpty else { return }
        let ok = infos.withUnsafeBufferPointer { TIFFMergeFieldInfo(tif, $0.baseAddress, UInt32($0.count)) }
        guard ok == 0 else { throw .writeFailed(reason: "TIFFMergeFieldInfo: \(Self.lastError(or: "cannot register DNG tags"))") }
    }

    /// Sets `tag` to `value` in the current directory.
    func set(_ tag: UInt16, _ value: Value) throws(TIFFError) {
        let t = UInt32(tag)
        guard let field = TIFFFieldWithTag(tif, t) else {
            throw .writeFailed(reason: "libtiff does not know tag \(TIFFTag.name(tag))")
        }
        let passCount = TIFFFieldPassCount(field) != 0
        let writeCount = Int(TIFFFieldWriteCount(field))
        let type = TIFFFieldDataType(field)
        let storage = Int(TIFFFieldSetGetSize(field))
        let what = "set \(TIFFTag.name(tag))"

        if case .ascii(let s) = value {
            // A text tag libtiff declares as BYTE (OriginalRawFileName): NUL-terminated bytes.
            if type != TIFF_ASCII { return try set(tag, .bytes(Array(s.utf8) + [0])) }
            let ok = s.withCString { p in withVaList([p]) { TIFFVSetField(tif, t, $0) } }
            return try Self.check(ok, what)
        }
        let n: Int
        switch value {
        case .ints(let v): n = v.count
        case .reals(let v): n = v.count
        case .bytes(let v): n = v.count
        case .ascii: n = 0
        }
        guard n > 0 else { return }
        if !passCount && writeCount > 0 && writeCount != n {
            throw .invalidInput(reason: "\(TIFFTag.name(tag)) needs \(writeCount) values, got \(n)")
        }

        // Single values are passed by value (integers as 32-bit, reals as double).
        if !passCount && writeCount == 1 {
            let arg: CVarArg
            switch value {
            case .ints(let v): arg = v[0]
            case .reals(let v): arg = v[0]
            case .bytes(let v): arg = UInt32(v[0])
            case .ascii: arg = UInt32(0)
            }
            let ok = withVaList([arg]) { TIFFVSetField(tif, t, $0) }
            return try Self.check(ok, what)
        }

        // Arrays: converted to the element type libtiff stores, passed by pointer (with count).
        let isReal = type == TIFF_RATIONAL || type == TIFF_SRATIONAL || type == TIFF_FLOAT || type == TIFF_DOUBLE
        let reals: [Double]
        switch value {
        case .ints(let v): reals = v.map { Double($0) }
        case .reals(let v): reals = v
        case .bytes(let v): reals = v.map { Double($0) }
        case .ascii: reals = []
        }
        func call(_ pointer: UnsafeRawPointer) -> Int32 {
            let p = OpaquePointer(pointer)
            if passCount {
                let count: CVarArg = writeCount == -3 ? UInt32(n) : Int32(n)
                return withVaList([count, p]) { TIFFVSetField(tif, t, $0) }
            }
            return withVaList([p]) { TIFFVSetField(tif, t, $0) }
        }
        let ok: Int32
        if isReal {
            if storage == 8 {
                ok = reals.withUnsafeBytes { call($0.baseAddress!) }
            } else {
                let f = reals.map { Float($0) }
                ok = f.withUnsafeBytes { call($0.baseAddress!) }
            }
        } else {
            switch storage {
            case 1:
                let b: [UInt8]
                if case .bytes(let v) = value { b = v } else { b = reals.map { UInt8(clamping: Int64($0)) } }
                ok = b.withUnsafeBytes { call($0.baseAddress!) }
            case 2: ok = reals.map { UInt16(clamping: Int64($0)) }.withUnsafeBytes { call($0.baseAddress!) }
            case 8: ok = reals.map { UInt64(clamping: Int64($0)) }.withUnsafeBytes { call($0.baseAddress!) }
            default: ok = reals.map { UInt32(clamping: Int64($0)) }.withUnsafeBytes { call($0.baseAddress!) }
            }
        }
        try Self.check(ok, what)
    }

    /// Sets `tag` to one integer passed by value, whatever count libtiff declares (SampleFormat
    /// is declared with a variable count but set with a single value applied to every sample).
    func setScalar(_ tag: UInt16, _ value: UInt32) throws(TIFFError) {
        let ok = withVaList([value]) { TIFFVSetField(tif, UInt32(tag), $0) }
        try Self.check(ok, "set \(TIFFTag.name(tag))")
    }

    /// Sets an ASCII `tag` unless `text` is nil or empty (optional EXIF-like fields).
    func set(_ tag: UInt16, ascii text: String?) throws(TIFFError) {
        guard let text, !text.isEmpty else { return }
        try set(tag, .ascii(text))
    }

    /// Declares one SubIFD to be written after the current directory.
    func setOneSubIFD() throws(TIFFError) { try setSubIFDs(1) }

    /// Declares `count` SubIFDs, the next `count` directories written after the current one.
    func setSubIFDs(_ count: Int) throws(TIFFError) {
        var offsets = [UInt64](repeating: 0, count: count)
        let ok = offsets.withUnsafeMutableBytes { buf in
            withVaList([Int32(count), OpaquePointer(buf.baseAddress!)]) { TIFFVSetField(tif, UInt32(TIFFTAG_SUBIFD), $0) }
        }
        try Self.check(ok, "set SubIFDs")
    }

    /// YCbCrSubSampling (two SHORTs, passed as two variadic values).
    func setYCbCrSubsampling(horizontal: Int, vertical: Int) throws(TIFFError) {
        let ok = withVaList([UInt32(horizontal), UInt32(vertical)]) { TIFFVSetField(tif, UInt32(TIFFTAG_YCBCRSUBSAMPLING), $0) }
        try Self.check(ok, "set YCbCrSubSampling")
    }

    func writeStrip(_ index: Int, _ bytes: UnsafeRawBufferPointer) throws(TIFFError) {
        errno = 0
        let written = TIFFWriteEncodedStrip(tif, UInt32(index), UnsafeMutableRawPointer(mutating: bytes.baseAddress), tmsize_t(bytes.count))
        guard written == bytes.count else {
            throw .writeFailed(reason: Self.failure("strip \(index)", errno: errno, fallback: "short write", alsoNamed: [EACCES, EPERM]))
        }
    }

    func writeTile(_ index: Int, _ bytes: UnsafeRawBufferPointer) throws(TIFFError) {
        errno = 0
        let written = TIFFWriteEncodedTile(tif, UInt32(index), UnsafeMutableRawPointer(mutating: bytes.baseAddress), tmsize_t(bytes.count))
        guard written == bytes.count else {
            throw .writeFailed(reason: Self.failure("tile \(index)", errno: errno, fallback: "short write", alsoNamed: [EACCES, EPERM]))
        }
    }

    /// Writes already-compressed bytes as strip `index` (no libtiff codec runs).
    func writeRawStrip(_ index: Int, _ bytes: UnsafeRawBufferPointer) throws(TIFFError) {
        errno = 0
        let written = TIFFWriteRawStrip(tif, UInt32(index), UnsafeMutableRawPointer(mutating: bytes.baseAddress), tmsize_t(bytes.count))
        guard written == bytes.count else {
            throw .writeFailed(reason: Self.failure("strip \(index)", errno: errno, fallback: "short write", alsoNamed: [EACCES, EPERM]))
        }
    }

    /// Writes already-compressed bytes as tile `index` (no libtiff codec runs).
    func writeRawTile(_ index: Int, _ bytes: UnsafeRawBufferPointer) throws(TIFFError) {
        errno = 0
        let written = TIFFWriteRawTile(tif, UInt32(index), UnsafeMutableRawPointer(mutating: bytes.baseAddress), tmsize_t(bytes.count))
        guard written == bytes.count else {
            throw .writeFailed(reason: Self.failure("tile \(index)", errno: errno, fallback: "short write", alsoNamed: [EACCES, EPERM]))
        }
    }

    /// Writes the current directory now (before its image data), to be updated in place later.
    func checkpointDirectory() throws(TIFFError) {
        try Self.check(TIFFCheckpointDirectory(tif), "TIFFCheckpointDirectory")
    }

    /// Writes the current directory and starts the next one.
    func writeDirectory() throws(TIFFError) {
        try Self.check(TIFFWriteDirectory(tif), "TIFFWriteDirectory")
        try registerMissingFields()
    }

    // MARK: - Memory TIFFs

    /// The bytes written to a memory handle so far (after `TIFFWriteDirectory`/`TIFFFlush`).
    func writtenBytes() -> [UInt8] {
        var size = 0
        guard let p = dr_enc_tiff_memory_bytes(memory, &size), size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: size))
    }

    /// Writes `samples` (`height` rows of `rowBytes` bytes) as strips of `rowsPerStrip` rows,
    /// then the directory, and returns the memory TIFF's bytes.
    func finish(strips samples: UnsafeRawBufferPointer, rowBytes: Int, height: Int, rowsPerStrip: Int) throws(TIFFError) -> [UInt8] {
        guard let base = samples.baseAddress, rowBytes > 0, rowsPerStrip > 0, samples.count >= rowBytes * height else {
            throw .invalidInput(reason: "\(samples.count) bytes for \(height) rows of \(rowBytes)")
        }
        var strip = 0, row = 0
        while row < height {
            let rows = min(rowsPerStrip, height - row)
            try writeStrip(strip, UnsafeRawBufferPointer(start: base + row * rowBytes, count: rows * rowBytes))
            strip += 1; row += rows
        }
        try Self.check(TIFFWriteDirectory(tif), "TIFFWriteDirectory")
        try Self.check(TIFFFlush(tif) == 1 ? 1 : 0, "TIFFFlush")
        return writtenBytes()
    }

    // MARK: - Reading fields

    func u16(_ tag: Int32) -> UInt16? { var v: UInt16 = 0; return dr_enc_tiff_get_u16(tif, UInt32(tag), &v) == 1 ? v : nil }
    func u32(_ tag: Int32) -> UInt32? { var v: UInt32 = 0; return dr_enc_tiff_get_u32(tif, UInt32(tag), &v) == 1 ? v : nil }
    func string(_ tag: Int32) -> String? {
        var p: UnsafePointer<CChar>?
        guard dr_enc_tiff_get_string(tif, UInt32(tag), &p) == 1, let p else { return nil }
        return String(cString: p)
    }
    func bytes(_ tag: Int32) -> [UInt8]? {
        var n: UInt32 = 0
        var p: UnsafeRawPointer?
        guard dr_enc_tiff_get_bytes(tif, UInt32(tag), &n, &p) == 1, let p else { return nil }
        return Array(UnsafeRawBufferPointer(start: p, count: Int(n)))
    }
}
