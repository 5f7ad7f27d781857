import CTIFF

extension OutputInspector {
    /// A libtiff handle reading `bytes` (the one wrapper, `LibTIFFWriter`).
    static func openTIFF(_ bytes: [UInt8]) throws(EncodeError) -> LibTIFFWriter {
        do { return try LibTIFFWriter.reading(bytes) } catch { throw .unreadable(format: "TIFF", reason: error.description) }
    }

    static func inspectTIFF(_ bytes: [UInt8]) throws(EncodeError) -> OutputSummary {
        let t = try openTIFF(bytes)
        guard let w = t.u32(TIFFTAG_IMAGEWIDTH), let h = t.u32(TIFFTAG_IMAGELENGTH) else {
            throw .unreadable(format: "TIFF", reason: "no ImageWidth/ImageLength")
        }
        var s = OutputSummary(format: .tiff, width: Int(w), height: Int(h),
                              bitsPerSample: Int(t.u16(TIFFTAG_BITSPERSAMPLE) ?? 1))
        if let icc = t.bytes(TIFFTAG_ICCPROFILE), !icc.isEmpty {
            s.iccProfile = icc
            s.iccDescription = iccDescription(icc)
        }
        s.orientation = t.u16(TIFFTAG_ORIENTATION).map(Int.init)
        if let o = s.orientation { s.exif["Orientation"] = String(o) }
        let strings: [(Int32, String)] = [(TIFFTAG_MAKE, "Make"), (TIFFTAG_MODEL, "Model"), (TIFFTAG_SOFTWARE, "Software"),
                                          (TIFFTAG_DATETIME, "DateTime"), (TIFFTAG_ARTIST, "Artist"),
                                          (TIFFTAG_COPYRIGHT, "Copyright")]
        for (tag, name) in strings { if let v = t.string(tag) { s.exif[name] = v } }
        return s
    }

    /// Interleaved RGB samples of a chunky 8- or 16-bit RGB TIFF (as UInt16 either way).
    static func decodeTIFF(_ bytes: [UInt8]) throws(EncodeError) -> (width: Int, height: Int, bits: Int, samples: [UInt16]) {
        let t = try openTIFF(bytes)
        guard let w32 = t.u32(TIFFTAG_IMAGEWIDTH), let h32 = t.u32(TIFFTAG_IMAGELENGTH) else {
            throw .unreadable(format: "TIFF", reason: "no ImageWidth/ImageLength")
        }
        let w = Int(w32), h = Int(h32)
        let bits = Int(t.u16(TIFFTAG_BITSPERSAMPLE) ?? 1), spp = Int(t.u16(TIFFTAG_SAMPLESPERPIXEL) ?? 1)
        guard spp == 3, bits == 8 || bits == 16, t.u16(TIFFTAG_PLANARCONFIG) ?? 1 == 1, w > 0, h > 0, w * h <= 1 << 28 else {
            throw .unreadable(format: "TIFF", reason: "only chunky 8/16-bit RGB is decoded (\(spp) samples, \(bits) bits)")
        }
        let rowBytes = Int(TIFFScanlineSize(t.handle))
        guard rowBytes >= w * 3 * bits / 8 else { throw .unreadable(format: "TIFF", reason: "scanline size \(rowBytes)") }
        var row = [UInt8](repeating: 0, count: rowBytes)
        var out = [UInt16](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let rc = row.withUnsafeMutableBytes { TIFFReadScanline(t.handle, $0.baseAddress, UInt32(y), 0) }
            guard rc == 1 else { throw .unreadable(format: "TIFF", reason: "row \(y): \(LibTIFFWriter.lastError(or: "libtiff error"))") }
            let base = y * w * 3
            if bits == 8 {
                for i in 0..<(w * 3) { out[base + i] = UInt16(row[i]) }
            } else {
                row.withUnsafeBytes { r in
                    for i in 0..<(w * 3) { out[base + i] = r.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self) }
                }
            }
        }
        return (w, h, bits, out)
    }
}
