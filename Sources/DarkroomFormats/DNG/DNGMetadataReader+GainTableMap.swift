import DarkroomCore

extension DNGMetadataReader {
    /// Bytes before the gains: 64 for ProfileGainTableMap, 80 for ProfileGainTableMap2.
    static func gainTableMapHeaderSize(version2: Bool) -> Int { version2 ? 80 : 64 }

    /// Parses the value of a ProfileGainTableMap (`version2` false, tag 52525) or
    /// ProfileGainTableMap2 (tag 52544) tag: `count` bytes at `offset` of `reader`, in the file's
    /// byte order (DNG 1.7.1 spec; the DNG SDK reads them with the file's stream). Layout:
    /// MapPointsV, MapPointsH (LONG), MapSpacingV/H, MapOriginV/H (DOUBLE), MapPointsN (LONG),
    /// MapInputWeights (5 FLOAT); version 2 adds DataType (LONG), Gamma, GainMin, GainMax (FLOAT);
    /// then V × H × N gains (FLOAT, or per DataType: BYTE, SHORT, half float, FLOAT), rows first.
    ///
    /// Every size is overflow-checked and the gains must lie inside the tag's bytes before any
    /// is read or stored, so a hostile header cannot make this allocate more than the tag holds
    /// (times 4 for 8-bit gains) nor more than `ProfileGainTableMap.maximumPoints` floats.
    package static func parseGainTableMap(_ reader: ByteReader, offset: Int, count: Int,
                                          version2: Bool) throws(TIFFError) -> ProfileGainTableMap {
        let tag = version2 ? TIFFTag.profileGainTableMap2 : TIFFTag.profileGainTableMap
        let header = gainTableMapHeaderSize(version2: version2)
        guard count >= header else { throw .badEntry(tag: tag, reason: "\(count) bytes, the header alone needs \(header)") }
        let pointsV = try reader.u32(offset), pointsH = try reader.u32(offset + 4)
        let spacingV = try reader.f64(offset + 8), spacingH = try reader.f64(offset + 16)
        let originV = try reader.f64(offset + 24), originH = try reader.f64(offset + 32)
        let pointsN = try reader.u32(offset + 40)
        var weights: [Float] = []
        for i in 0..<5 { weights.append(try reader.f32(offset + 44 + 4 * i)) }
        var dataType = ProfileGainTableMap.DataType.float32
        var gamma: Float = 1, gainMin: Float = 1, gainMax: Float = 1
        if version2 {
            let code = try reader.u32(offset + 64)
            guard let t = ProfileGainTableMap.DataType(rawValue: code) else {
                throw .badEntry(tag: tag, reason: "DataType \(code) (0…3 defined)")
            }
            dataType = t
            gamma = try reader.f32(offset + 68)
            gainMin = try reader.f32(offset + 72)
            gainMax = try reader.f32(offset + 76)
        }
        func invalid(_ e: ProfileGainTableMap.Invalid) -> TIFFError { .badEntry(tag: tag, reason: e.description) }
        guard pointsV >= 1, pointsH >= 1, pointsN >= 1 else {
            throw invalid(.gridSize(pointsV: pointsV, pointsH: pointsH, pointsN: pointsN))
        }
        let n: Int
        do { n = try ProfileGainTableMap.pointCount(pointsV: pointsV, pointsH: pointsH, pointsN: pointsN) } catch {
            throw invalid(error)
        }
        // n < 2^24, so n × 4 + 80 cannot overflow.
        let needed = header + n * dataType.byteCount
        guard count >= needed else {
            throw .badEntry(tag: tag, reason: "\(count) bytes, a \(pointsV)x\(pointsH)x\(pointsN) \(dataType) map needs \(needed)")
        }
        try reader.check(offset, needed)
        var gains = [Float](repeating: 0, count: n)
        let base = offset + header
        switch dataType {
        case .float32:
            for i in 0..<n { gains[i] = try reader.f32(base + 4 * i) }
        case .float16:
            for i in 0..<n { gains[i] = Float(Float16(bitPattern: try reader.u16(base + 2 * i))) }
        case .unsigned16:
            for i in 0..<n {
                gains[i] = ProfileGainTableMap.decode(stored: try reader.u16(base + 2 * i), dataType: .unsigned16,
                                                      gainMin: gainMin, gainMax: gainMax)
            }
        case .unsigned8:
            for i in 0..<n {
                gains[i] = ProfileGainTableMap.decode(stored: UInt16(try reader.u8(base + i)), dataType: .unsigned8,
                                                      gainMin: gainMin, gainMax: gainMax)
            }
        }
        do {
            return try ProfileGainTableMap(version: version2 ? 2 : 1, pointsV: pointsV, pointsH: pointsH,
                                           spacingV: spacingV, spacingH: spacingH, originV: originV, originH: originH,
                                           pointsN: pointsN, inputWeights: weights, dataType: dataType, gamma: gamma,
                                           gainMin: gainMin, gainMax: gainMax, gains: gains)
        } catch {
            throw invalid(error)
        }
    }

    /// The map stored under `tag` (ProfileGainTableMap or ProfileGainTableMap2) in `ifd`, nil
    /// when absent; a malformed map becomes a warning ("… not applied") and nil.
    package static func gainTableMap(_ ifd: TIFFIFD, _ tag: UInt16, _ tags: inout LenientTags) -> ProfileGainTableMap? {
        guard let e = ifd.entry(tag) else { return nil }
        do {
            guard e.typeCode == TIFFFieldType.undefined.rawValue || e.typeCode == TIFFFieldType.byte.rawValue else {
                throw TIFFError.badEntry(tag: tag, reason: "type \(e.typeCode), UNDEFINED expected")
            }
            let (o, size) = try ifd.valueRange(e)
            return try parseGainTableMap(ifd.reader, offset: o, count: size, version2: tag == TIFFTag.profileGainTableMap2)
        } catch {
            // IFD 0's ProfileGainTableMap2 is read twice (as the file's map and its profile's).
            let message = "\(error); the gain table map is not applied"
            if !tags.warnings.contains(message) { tags.warn(message) }
            return nil
        }
    }

    /// The map of an IFD that holds image data (IFD 0 or the raw IFD): ProfileGainTableMap2 when
    /// present, else ProfileGainTableMap (DNG 1.7: version 2 supersedes version 1). A malformed
    /// version 2 does not fall back to version 1 (as the SDK, which stops at the bad tag).
    package static func imageGainTableMap(_ ifd: TIFFIFD, _ tags: inout LenientTags) -> ProfileGainTableMap? {
        if ifd.entry(TIFFTag.profileGainTableMap2) != nil { return gainTableMap(ifd, TIFFTag.profileGainTableMap2, &tags) }
        return gainTableMap(ifd, TIFFTag.profileGainTableMap, &tags)
    }
}
