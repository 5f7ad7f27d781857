extension OutputInspector {
    static func inspectJPEG(_ bytes: [UInt8]) throws(EncodeError) -> OutputSummary {
        let walk = try JPEGMarkerWalker(bytes[...])
        guard let f = walk.frame else { throw .unreadable(format: "JPEG", reason: "no frame header") }
        var s = OutputSummary(format: .jpeg, width: f.width, height: f.height, bitsPerSample: f.precision)

        if let exif = walk.app(0xE1, signature: JPEGSegment.exifSignature).first {
            let r = try apply(exif: Array(exif.body), to: &s)
            if let range = r.thumbnail {
                let thumb = Array(exif.body.dropFirst(range.lowerBound).prefix(range.count))
                if let h = try? TurboJPEG(.decompress).header(thumb) { s.thumbnail = .init(width: h.width, height: h.height) }
            }
        }
        if let xmp = walk.app(0xE1, signature: JPEGSegment.xmpSignature).first { s.xmpBytes = xmp.body.count }

        let chunks = walk.app(0xE2, signature: JPEGSegment.iccSignature)
        if !chunks.isEmpty {
            var parts: [Int: ArraySlice<UInt8>] = [:]
            var total = 0
            for c in chunks where c.body.count >= 2 {
                let seq = Int(c.body[c.body.startIndex]), count = Int(c.body[c.body.startIndex + 1])
                total = count
                parts[seq] = c.body.dropFirst(2)
            }
            guard total > 0, parts.count == total, (1...total).allSatisfy({ parts[$0] != nil }) else {
                throw .unreadable(format: "JPEG", reason: "ICC_PROFILE chunks incomplete (\(parts.count) of \(total))")
            }
            s.iccProfile = (1...total).flatMap { parts[$0] ?? [] }
            s.iccDescription = iccDescription(s.iccProfile ?? [])
        }

        for m in try mpfSecondaries(bytes) {
            guard let urn = m.urn, let h = try? TurboJPEG(.decompress).header(Array(m.bytes)) else { continue }
            s.auxiliaryPlanes.append(.init(urn: urn, width: h.width, height: h.height))
        }
        return s
    }

    /// The MPF secondary images (entries 2…n of the MP Index IFD) with their XMP auxiliary type.
    static func mpfSecondaries(_ bytes: [UInt8]) throws(EncodeError) -> [(bytes: ArraySlice<UInt8>, urn: String?)] {
        let walk = try JPEGMarkerWalker(bytes[...])
        guard let mpf = walk.app(0xE2, signature: JPEGSegment.mpfSignature).first else { return [] }
        let tiff = Array(mpf.body)
        let mpHeader = mpf.offset
        guard tiff.count >= 8 else { throw .unreadable(format: "JPEG", reason: "MPF header truncated") }
        let little = tiff[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= tiff.count else { return nil }
            return (0..<4).reduce(0) { $0 << 8 | Int(tiff[at + (little ? 3 - $1 : $1)]) }
        }
        guard let ifd = u32(4), let n = u16(ifd) else { throw .unreadable(format: "JPEG", reason: "MPF IFD truncated") }
        var entries: (offset: Int, count: Int)?
        for i in 0..<n {
            let e = ifd + 2 + 12 * i
            guard let tag = u16(e), let count = u32(e + 4), let off = u32(e + 8) else {
                throw .unreadable(format: "JPEG", reason: "MPF IFD entry \(i) truncated")
            }
            if tag == 0xB002 { entries = (off, count / 16) }
        }
        guard let entries else { return [] }
        var out: [(ArraySlice<UInt8>, String?)] = []
        for k in 1..<max(entries.count, 1) {
            let e = entries.offset + 16 * k
            guard let size = u32(e + 4), let off = u32(e + 8) else {
                throw .unreadable(format: "JPEG", reason: "MP Entry \(k + 1) truncated")
            }
            let start = mpHeader + off
            guard size > 0, start >= 0, start + size <= bytes.count else {
                throw .unreadable(format: "JPEG", reason: "MP Entry \(k + 1) points outside the file (\(start)+\(size))")
            }
            let image = bytes[start..<(start + size)]
            let urn = (try? JPEGMarkerWalker(image))?.app(0xE1, signature: JPEGSegment.xmpSignature).first
                .flatMap { MatteXMP.auxiliaryImageType(in: String(decoding: $0.body, as: UTF8.self)) }
            out.append((image, urn))
        }
        return out
    }
}
