import DarkroomCore
/// Walks the marker segments of a JPEG stream from SOI to SOS (ITU T.81 §B.1.1), bounds-checked.
package struct JPEGMarkerWalker {
    package struct Segment {
        var marker: UInt8
        /// Offset of the payload (after the 2-byte length) in the walked bytes.
        var payloadOffset: Int
        var payload: ArraySlice<UInt8>
    }

    private(set) var segments: [Segment] = []
    /// From the first SOFn: sample precision, height, width, component count.
    package private(set) var frame: (precision: Int, width: Int, height: Int, components: Int)?

    package init(_ b: ArraySlice<UInt8>) throws(EncodeError) {
        let s = b.startIndex
        guard b.count >= 4, b[s] == 0xFF, b[s + 1] == 0xD8 else {
            throw .unreadable(format: "JPEG", reason: "no SOI marker")
        }
        var i = s + 2
        while i + 4 <= b.endIndex {
            guard b[i] == 0xFF else { throw .unreadable(format: "JPEG", reason: "expected a marker at \(i - s)") }
            let m = b[i + 1]
            if m == 0xFF { i += 1; continue }   // fill byte
            if m == 0xD8 || m == 0x01 || (0xD0...0xD7).contains(m) { i += 2; continue }
            if m == 0xD9 { break }
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard len >= 2, i + 2 + len <= b.endIndex else {
                throw .unreadable(format: "JPEG", reason: "segment FF\(String(m, radix: 16, uppercase: true)) at \(i - s) is truncated")
            }
            let payload = b[(i + 4)..<(i + 2 + len)]
            segments.append(Segment(marker: m, payloadOffset: i + 4 - s, payload: payload))
            let isSOF = (0xC0...0xCF).contains(m) && m != 0xC4 && m != 0xC8 && m != 0xCC
            if isSOF, frame == nil, payload.count >= 6 {
                let p = payload.startIndex
                frame = (Int(payload[p]), Int(payload[p + 3]) << 8 | Int(payload[p + 4]),
                         Int(payload[p + 1]) << 8 | Int(payload[p + 2]), Int(payload[p + 5]))
            }
            if m == 0xDA { break }
            i += 2 + len
        }
        guard frame != nil else { throw .unreadable(format: "JPEG", reason: "no frame header (SOFn) before SOS") }
    }

    /// Payloads (after `signature`) of APPn segments with `marker` that start with `signature`.
    package func app(_ marker: UInt8, signature: [UInt8]) -> [(offset: Int, body: ArraySlice<UInt8>)] {
        segments.filter { $0.marker == marker && $0.payload.starts(with: signature) }
            .map { ($0.payloadOffset + signature.count, $0.payload.dropFirst(signature.count)) }
    }
}
