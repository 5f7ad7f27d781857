import DarkroomCore
/// JPEG marker segments Darkroom writes itself (ITU T.81 §B.1.1.4: marker, 2-byte length that
/// counts itself, payload ≤ 65533 bytes).
package enum JPEGSegment {
    package static let maxPayload = 65533
    /// `Exif\0\0` (EXIF 2.32 §4.5.4).
    package static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    /// Adobe XMP Specification Part 3 §1.1.3.
    package static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// ICC.1:2022 Annex B.4.
    package static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    /// CIPA DC-007 §5.2.
    package static let mpfSignature: [UInt8] = Array("MPF".utf8) + [0]
    /// Largest ICC chunk: 65533 − 12 (signature) − 2 (sequence number, count).
    package static let maxICCChunk = maxPayload - 14

    package static func segment(marker: UInt8, payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + BigEndian.u16(UInt16(payload.count + 2)) + payload
    }

    package static func exif(_ tiff: [UInt8]) throws(EncodeError) -> [UInt8] {
        let payload = exifSignature + tiff
        guard payload.count <= maxPayload else {
            throw .metadataTooLarge(format: "JPEG", what: "EXIF APP1", bytes: payload.count, limit: maxPayload)
        }
        return segment(marker: 0xE1, payload: payload)
    }

    package static func xmp(_ packet: String) throws(EncodeError) -> [UInt8] {
        let payload = xmpSignature + Array(MatteXMP.wrapped(packet).utf8)
        guard payload.count <= maxPayload else {
            // Extended XMP (GUID-linked APP1 chain) is not written.
            throw .metadataTooLarge(format: "JPEG", what: "XMP APP1", bytes: payload.count, limit: maxPayload)
        }
        return segment(marker: 0xE1, payload: payload)
    }

    /// The ICC profile split into APP2 chunks numbered 1…count.
    package static func icc(_ profile: [UInt8]) throws(EncodeError) -> [UInt8] {
        guard !profile.isEmpty else { return [] }
        let count = (profile.count + maxICCChunk - 1) / maxICCChunk
        guard count <= 255 else {
            throw .metadataTooLarge(format: "JPEG", what: "ICC profile", bytes: profile.count, limit: 255 * maxICCChunk)
        }
        var out: [UInt8] = []
        out.reserveCapacity(profile.count + count * 18)
        for i in 0..<count {
            let chunk = profile[(i * maxICCChunk)..<min(profile.count, (i + 1) * maxICCChunk)]
            out += segment(marker: 0xE2, payload: iccSignature + [UInt8(i + 1), UInt8(count)] + Array(chunk))
        }
        return out
    }

    /// Splits a JPEG stream produced by libjpeg-turbo into SOI, an optional leading JFIF APP0 and
    /// the rest, so our segments can be spliced in right after SOI.
    package static func splitAfterSOI(_ jpeg: [UInt8]) throws(EncodeError) -> (jfif: ArraySlice<UInt8>, rest: ArraySlice<UInt8>) {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else {
            throw .library(format: "JPEG", call: "tjCompress2", message: "output does not start with SOI")
        }
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count >= 6 {
            let len = Int(jpeg[4]) << 8 | Int(jpeg[5])
            let end = 4 + len
            if end <= jpeg.count { return (jpeg[2..<end], jpeg[end...]) }
        }
        return (jpeg[2..<2], jpeg[2...])
    }
}
