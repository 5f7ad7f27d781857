import CJPEG

/// A TurboJPEG 2.1 handle (compressor or decompressor), destroyed with the value.
/// Every libjpeg-turbo call in Darkroom goes through here.
struct TurboJPEG: ~Copyable {
    private let handle: tjhandle
    private let format: String

    enum Kind { case compress, decompress }

    init(_ kind: Kind, format: String = "JPEG") throws(EncodeError) {
        self.format = format
        let h = kind == .compress ? tjInitCompress() : tjInitDecompress()
        guard let h else {
            throw .library(format: format, call: kind == .compress ? "tjInitCompress" : "tjInitDecompress",
                           message: String(cString: tjGetErrorStr2(nil)))
        }
        handle = h
    }

    deinit { tjDestroy(handle) }

    private func check(_ rc: Int32, _ call: String) throws(EncodeError) {
        if rc != 0 { throw .library(format: format, call: call, message: String(cString: tjGetErrorStr2(handle))) }
    }

    enum Sampling {
        case s444, s422, s420, gray
        var tj: Int32 {
            switch self {
            case .s444: return Int32(TJSAMP_444.rawValue)
            case .s422: return Int32(TJSAMP_422.rawValue)
            case .s420: return Int32(TJSAMP_420.rawValue)
            case .gray: return Int32(TJSAMP_GRAY.rawValue)
            }
        }
    }

    /// Compresses interleaved RGB (3 channels) or greyscale (1 channel) 8-bit pixels into a
    /// complete baseline JPEG stream (accurate integer DCT).
    func compress(pixels: [UInt8], width: Int, height: Int, channels: Int, quality: Int,
                  sampling: Sampling) throws(EncodeError) -> [UInt8] {
        let pf = channels == 1 ? Int32(TJPF_GRAY.rawValue) : Int32(TJPF_RGB.rawValue)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { tjFree(out) } }
        let rc = pixels.withUnsafeBufferPointer { buf in
            tjCompress2(handle, buf.baseAddress, Int32(width), Int32(width * channels), Int32(height), pf,
                        &out, &size, channels == 1 ? Int32(TJSAMP_GRAY.rawValue) : sampling.tj,
                        Int32(quality), TJFLAG_ACCURATEDCT)
        }
        try check(rc, "tjCompress2")
        guard let out else { throw .library(format: format, call: "tjCompress2", message: "no output buffer") }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// The same, from rows starting at `base` (`width × channels` bytes per row).
    func compress(base: UnsafePointer<UInt8>, width: Int, height: Int, channels: Int, quality: Int,
                  sampling: Sampling) throws(EncodeError) -> [UInt8] {
        let pf = channels == 1 ? Int32(TJPF_GRAY.rawValue) : Int32(TJPF_RGB.rawValue)
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { tjFree(out) } }
        let rc = tjCompress2(handle, base, Int32(width), Int32(width * channels), Int32(height), pf,
                             &out, &size, channels == 1 ? Int32(TJSAMP_GRAY.rawValue) : sampling.tj,
                             Int32(quality), TJFLAG_ACCURATEDCT)
        try check(rc, "tjCompress2")
        guard let out else { throw .library(format: format, call: "tjCompress2", message: "no output buffer") }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// Reads the frame header: (width, height, subsampling code).
    func header(_ jpeg: [UInt8]) throws(EncodeError) -> (width: Int, height: Int, subsampling: Int) {
        var w: Int32 = 0, h: Int32 = 0, ss: Int32 = 0, cs: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer { buf in
            tjDecompressHeader3(handle, buf.baseAddress, UInt(buf.count), &w, &h, &ss, &cs)
        }
        try check(rc, "tjDecompressHeader3")
        return (Int(w), Int(h), Int(ss))
    }

    /// Decodes to interleaved 8-bit RGB (or greyscale when `channels == 1`). `stopOnWarning`
    /// makes libjpeg's warnings (corrupt or missing entropy-coded data) errors.
    func decompress(_ jpeg: [UInt8], channels: Int = 3,
                    stopOnWarning: Bool = false) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) {
        let (w, h, _) = try header(jpeg)
        guard w > 0, h > 0, w * h <= 1 << 28 else {
            throw .unreadable(format: format, reason: "implausible JPEG size \(w)x\(h)")
        }
        var pixels = [UInt8](repeating: 0, count: w * h * channels)
        let pf = channels == 1 ? Int32(TJPF_GRAY.rawValue) : Int32(TJPF_RGB.rawValue)
        let rc = jpeg.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(handle, src.baseAddress, UInt(src.count), dst.baseAddress, Int32(w),
                              Int32(w * channels), Int32(h), pf, TJFLAG_ACCURATEDCT | (stopOnWarning ? TJFLAG_STOPONWARNING : 0))
            }
        }
        try check(rc, "tjDecompress2")
        return (w, h, pixels)
    }
}
