import DarkroomCore

/// The ICC profile Darkroom tags mattes with: a monochrome display profile whose grey TRC is the
/// identity (gamma 1.0), as iPhones tag their portrait and semantic mattes ("Linear Gray", seen
/// in ../shared/samples/heif/libvips_apple-heic-gainmap.heic: a 356-byte Apple v2.1 profile).
/// A matte sample is a membership fraction (0…255 ↦ 0…1), not a display-referred light level, so
/// linear is the honest encoding.
///
/// Written here byte by byte after ICC.1:2022 (v4.4): header (§7.2; class `mntr`, space `GRAY`,
/// PCS `XYZ `, D50 illuminant, fixed creation date, MD5 profile ID per §7.2.18) and four tags
/// (§9.2): `desc` and `cprt` (`mluc`, en-US), `wtpt` (D50, `XYZ `), `kTRC` (`curv` with one entry,
/// gamma 1.0 as u8Fixed8Number 0x0100). Deterministic: the same bytes on every run.
public enum LinearGrayProfile {
    public static let description = "Linear Gray"

    /// The profile bytes (built once).
    public static let bytes: [UInt8] = build()

    static func s15Fixed16(_ v: Double) -> [UInt8] { BigEndian.u32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }

    /// ICC D50 (PCS illuminant, ICC.1 §7.2.16): X 0.9642, Y 1.0, Z 0.8249.
    static let d50: [UInt8] = s15Fixed16(0.9642) + s15Fixed16(1.0) + s15Fixed16(0.8249)

    static func mluc(_ text: String) -> [UInt8] {
        let utf16 = text.utf16.flatMap { BigEndian.u16($0) }
        return Array("mluc".utf8) + [0, 0, 0, 0] + BigEndian.u32(1) + BigEndian.u32(12)
            + Array("enUS".utf8) + BigEndian.u32(UInt32(utf16.count)) + BigEndian.u32(28) + utf16
    }

    static func build() -> [UInt8] {
        let tags: [(String, [UInt8])] = [
            ("desc", mluc(description)),
            ("cprt", mluc(ICCProfileFactory.copyright)),
            ("wtpt", Array("XYZ ".utf8) + [0, 0, 0, 0] + d50),
            ("kTRC", Array("curv".utf8) + [0, 0, 0, 0] + BigEndian.u32(1) + [0x01, 0x00]),
        ]
        let tableSize = 4 + 12 * tags.count
        var offset = 128 + tableSize
        var table: [UInt8] = BigEndian.u32(UInt32(tags.count))
        var data: [UInt8] = []
        for (signature, body) in tags {
            table += Array(signature.utf8) + BigEndian.u32(UInt32(offset)) + BigEndian.u32(UInt32(body.count))
            let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)   // 4-byte alignment (§7.3.1)
            data += padded
            offset += padded.count
        }
        let size = 128 + table.count + data.count
        var header: [UInt8] = BigEndian.u32(UInt32(size)) + [0, 0, 0, 0]      // size, preferred CMM
        header += [0x04, 0x40, 0, 0]                                           // version 4.4
        header += Array("mntrGRAYXYZ ".utf8)                                   // class, colour space, PCS
        for v in ICCProfileFactory.creationDate { header += BigEndian.u16(v) }
        header += Array("acsp".utf8) + [UInt8](repeating: 0, count: 4 * 4 + 8)   // platform, flags, maker, model, attributes
        header += BigEndian.u32(0) + d50 + [0, 0, 0, 0]                        // perceptual, illuminant, creator
        header += [UInt8](repeating: 0, count: 16 + 28)                        // profile ID (below), reserved
        var profile = header + table + data
        // Profile ID: MD5 of the profile with flags, rendering intent and ID zeroed (they are).
        let id = MD5.hash(profile)
        profile.replaceSubrange(84..<100, with: id)
        return profile
    }
}
