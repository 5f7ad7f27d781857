import DarkroomCore
/// Multi-Picture Format (CIPA DC-007-2009) container for JPEG secondary images.
///
/// The primary image carries an APP2 `MPF\0` segment holding a big-endian TIFF structure with the
/// MP Index IFD: MPFVersion "0100", NumberOfImages, and one 16-byte MP Entry per image
/// (attribute, size, offset, two dependent-image entry numbers). Offsets count from the MP
/// header (the `MM` byte-order mark inside the APP2 segment); the primary's offset is 0.
/// The secondary JPEGs follow the primary's EOI back to back.
package enum MPFWriter {
    package enum Tag {
        static let MPFVersion: UInt16 = 0xB000, NumberOfImages: UInt16 = 0xB001, MPEntry: UInt16 = 0xB002
    }
    /// Representative-image flag (bit 29) + type "Baseline MP Primary Image" (0x030000).
    package static let primaryAttribute: UInt32 = 0x2003_0000
    /// Type code 0 ("Undefined"): what iPhone JPEGs use for their auxiliary (matte) images.
    package static let auxiliaryAttribute: UInt32 = 0x0000_0000

    /// The complete file: primary (with the MPF segment spliced after `primaryHead`) + secondaries.
    package static func assemble(primaryHead: [UInt8], primaryRest: [UInt8], secondaries: [[UInt8]]) -> [UInt8] {
        let placeholder = segment(entries: Array(repeating: (0, 0, 0), count: secondaries.count + 1))
        let primarySize = primaryHead.count + placeholder.count + primaryRest.count
        let mpHeader = primaryHead.count + 4 + JPEGSegment.mpfSignature.count
        var entries: [(UInt32, UInt32, UInt32)] = [(primaryAttribute, UInt32(primarySize), 0)]
        var fileOffset = primarySize
        for s in secondaries {
            entries.append((auxiliaryAttribute, UInt32(s.count), UInt32(fileOffset - mpHeader)))
            fileOffset += s.count
        }
        var out = primaryHead
        out.reserveCapacity(fileOffset)
        out += segment(entries: entries)
        out += primaryRest
        for s in secondaries { out += s }
        return out
    }

    /// The APP2 MPF segment for (attribute, size, offset) entries.
    package static func segment(entries: [(UInt32, UInt32, UInt32)]) -> [UInt8] {
        var ifd = TIFFIFDBuilder()
        ifd.undefined(Tag.MPFVersion, Array("0100".utf8))
        ifd.long(Tag.NumberOfImages, UInt32(entries.count))
        var mp: [UInt8] = []
        for e in entries { mp += BigEndian.u32(e.0) + BigEndian.u32(e.1) + BigEndian.u32(e.2) + [0, 0, 0, 0] }
        ifd.undefined(Tag.MPEntry, mp)
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + BigEndian.u32(8)
        ifd.serialize(at: 8, nextIFD: 0, into: &tiff)
        return JPEGSegment.segment(marker: 0xE2, payload: JPEGSegment.mpfSignature + tiff)
    }
}
