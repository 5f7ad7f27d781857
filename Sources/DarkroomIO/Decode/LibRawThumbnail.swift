import CLibRaw
import DarkroomCore
import Foundation

/// An embedded preview extracted from a RAW file without developing it.
public struct ExtractedPreview: Sendable {
    public enum Kind: String, Sendable {
        /// The bytes are a complete JPEG file (not yet validated).
        case jpeg
        /// The bytes are interleaved 8-bit RGB, `width × height × 3` of them.
        case rgb8
    }
    public var kind: Kind
    public var width: Int
    public var height: Int
    public var bytes: [UInt8]
    public init(kind: Kind, width: Int, height: Int, bytes: [UInt8]) {
        self.kind = kind; self.width = width; self.height = height; self.bytes = bytes
    }
}

/// LibRaw's thumbnail API (`libraw_unpack_thumb` + `libraw_dcraw_make_mem_thumb`): the largest
/// preview LibRaw selects, as JPEG bytes or an 8-bit RGB bitmap. `PreviewExtractor` validates
/// and uses it; nothing else should.
public enum LibRawThumbnail {
    /// The preview, or nil when the file has none LibRaw can unpack.
    public static func extract(path: String) throws(DecodeError) -> ExtractedPreview? {
        guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path: path) }
        guard let handle = libraw_init(0) else { throw .unreadable(path: path, reason: "LibRaw could not allocate a decoder") }
        defer { libraw_close(handle) }
        let rc = libraw_open_file(handle, path)
        guard rc == 0 else {
            if rc == LIBRAW_FILE_UNSUPPORTED.rawValue { throw .notRaw(path: path, detail: "LibRaw does not recognise it") }
            throw .corrupt(path: path, detail: "\(String(cString: libraw_strerror(rc))) during open")
        }
        guard libraw_unpack_thumb(handle) == 0 else { return nil }
        var err: Int32 = 0
        guard let img = libraw_dcraw_make_mem_thumb(handle, &err) else { return nil }
        defer { libraw_dcraw_clear_mem(img) }
        let p = img.pointee
        let count = Int(p.data_size)
        guard count > 0 else { return nil }
        let bytes = withUnsafePointer(to: &img.pointee.data) { ptr in
            ptr.withMemoryRebound(to: UInt8.self, capacity: count) { [UInt8](UnsafeBufferPointer(start: $0, count: count)) }
        }
        switch p.type {
        case LIBRAW_IMAGE_JPEG:
            // LibRaw leaves width/height 0 for JPEG thumbnails; its thumbnail record has them.
            let t = handle.pointee.thumbnail
            return ExtractedPreview(kind: .jpeg, width: Int(p.width != 0 ? p.width : t.twidth),
                                    height: Int(p.height != 0 ? p.height : t.theight), bytes: bytes)
        case LIBRAW_IMAGE_BITMAP:
            let (area, o1) = Int(p.width).multipliedReportingOverflow(by: Int(p.height))
            let (needed, o2) = area.multipliedReportingOverflow(by: 3)
            guard p.colors == 3, p.bits == 8, p.width > 0, p.height > 0, !o1, !o2, count >= needed else { return nil }
            return ExtractedPreview(kind: .rgb8, width: Int(p.width), height: Int(p.height), bytes: Array(bytes.prefix(needed)))
        default:
            return nil
        }
    }
}
