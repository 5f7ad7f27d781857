import CShims
import CTIFF

/// A libtiff handle on an in-memory buffer (TIFFClientOpen via CShims), closed with the value.
struct MemoryTIFF: ~Copyable {
    let tif: OpaquePointer
    private let state: UnsafeMutableRawPointer?
    /// Keeps the input alive for read handles (libtiff reads it in place).
    private let input: UnsafeMutableBufferPointer<UInt8>?

    /// A new, empty TIFF for writing.
    init(writing: Void = ()) throws(EncodeError) {
        dr_tiff_install_handlers()
        dr_tiff_clear_error()
        var st: UnsafeMutableRawPointer?
        guard let t = dr_enc_tiff_open_memory(nil, 0, 1, &st) else {
            throw .library(format: "TIFF", call: "TIFFClientOpen", message: MemoryTIFF.lastError)
        }
        tif = t; state = st; input = nil
    }

    /// A TIFF reading `bytes` (copied once).
    init(reading bytes: [UInt8]) throws(EncodeError) {
        dr_tiff_install_handlers()
        dr_tiff_clear_error()
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = copy.initialize(from: bytes)
        var st: UnsafeMutableRawPointer?
        guard let t = dr_enc_tiff_open_memory(copy.baseAddress, bytes.count, 0, &st) else {
            copy.deallocate()
            throw .unreadable(format: "TIFF", reason: MemoryTIFF.lastError)
        }
        tif = t; state = st; input = copy
    }

    deinit {
        TIFFClose(tif)
        dr_enc_tiff_memory_free(state)
        input?.deallocate()
    }

    static var lastError: String {
        let s = String(cString: dr_tiff_last_error())
        return s.isEmpty ? "libtiff error" : s
    }

    /// The bytes written (call after `TIFFWriteDirectory`/`TIFFFlush`).
    func writtenBytes() -> [UInt8] {
        var size = 0
        guard let p = dr_enc_tiff_memory_bytes(state, &size), size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: size))
    }

    /// Writes `samples` (`height` rows of `rowBytes` bytes) as strips of `rowsPerStrip` rows,
    /// then the directory, and returns the file's bytes.
    func finish(strips samples: UnsafeRawBufferPointer, rowBytes: Int, height: Int, rowsPerStrip: Int) throws(EncodeError) -> [UInt8] {
        guard let base = samples.baseAddress, samples.count >= rowBytes * height else {
            throw .invalidImage(format: "TIFF", reason: "\(samples.count) bytes for \(height) rows of \(rowBytes)")
        }
        var strip = 0, row = 0
        while row < height {
            let rows = min(rowsPerStrip, height - row)
            let written = TIFFWriteEncodedStrip(tif, UInt32(strip), UnsafeMutableRawPointer(mutating: base + row * rowBytes),
                                                tmsize_t(rows * rowBytes))
            guard written >= 0 else {
                throw .library(format: "TIFF", call: "TIFFWriteEncodedStrip(\(strip))", message: MemoryTIFF.lastError)
            }
            strip += 1; row += rows
        }
        try check(TIFFWriteDirectory(tif), "TIFFWriteDirectory")
        try check(TIFFFlush(tif) == 1 ? 1 : 0, "TIFFFlush")
        return writtenBytes()
    }

    func check(_ ok: Int32, _ call: String) throws(EncodeError) {
        if ok != 1 { throw .library(format: "TIFF", call: call, message: MemoryTIFF.lastError) }
    }

    func set(_ tag: Int32, u16 v: UInt16) throws(EncodeError) { try check(dr_enc_tiff_set_u16(tif, UInt32(tag), v), "TIFFSetField(\(tag))") }
    func set(_ tag: Int32, u32 v: UInt32) throws(EncodeError) { try check(dr_enc_tiff_set_u32(tif, UInt32(tag), v), "TIFFSetField(\(tag))") }
    func set(_ tag: Int32, double v: Double) throws(EncodeError) { try check(dr_enc_tiff_set_double(tif, UInt32(tag), v), "TIFFSetField(\(tag))") }
    func set(_ tag: Int32, string v: String?) throws(EncodeError) {
        guard let v, !v.isEmpty else { return }
        try check(dr_enc_tiff_set_string(tif, UInt32(tag), v), "TIFFSetField(\(tag))")
    }
    func set(_ tag: Int32, bytes: [UInt8]) throws(EncodeError) {
        guard !bytes.isEmpty else { return }
        try check(bytes.withUnsafeBytes { dr_enc_tiff_set_bytes(tif, UInt32(tag), UInt32($0.count), $0.baseAddress) },
                  "TIFFSetField(\(tag))")
    }

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
