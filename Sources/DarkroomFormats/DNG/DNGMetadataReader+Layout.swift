import DarkroomCore

extension DNGMetadataReader {
    /// ActiveArea, DefaultCrop, CFA, orientation and opcode lists (DNG 1.7 §4 raw IFD tags).
    package static func readLayout(_ raw: TIFFIFD, width: Int, height: Int, into md: inout RawMetadata, _ tags: inout LenientTags) {
        // ActiveArea: top, left, bottom, right.
        var activeWidth = width, activeHeight = height
        var left = 0, top = 0
        if let a = tags.get({ try raw.doubles(TIFFTag.activeArea) }) {
            let v = a.map { Int($0.rounded()) }
            if v.count == 4, v[0] >= 0, v[1] >= 0, v[0] < v[2], v[1] < v[3], v[2] <= height, v[3] <= width {
                md.activeArea = PixelRect(x: v[1], y: v[0], width: v[3] - v[1], height: v[2] - v[0])
                top = v[0]; left = v[1]; activeWidth = v[3] - v[1]; activeHeight = v[2] - v[0]
            } else {
                tags.warn("ActiveArea \(v) does not fit the \(width)x\(height) image; ignored")
            }
        }

        // DefaultCropOrigin/Size are relative to the ActiveArea's top-left.
        let origin = tags.get { try raw.doubles(TIFFTag.defaultCropOrigin) }
        let size = tags.get { try raw.doubles(TIFFTag.defaultCropSize) }
        if origin != nil || size != nil {
            let o = origin ?? [0, 0], s = size ?? [Double(activeWidth), Double(activeHeight)]
            if o.count == 2, s.count == 2, o.allSatisfy({ $0.isFinite && $0 >= 0 }), s.allSatisfy({ $0.isFinite && $0 > 0 }) {
                let rect = PixelRect(x: Int(o[0].rounded()), y: Int(o[1].rounded()),
                                     width: Int(s[0].rounded()), height: Int(s[1].rounded()))
                if PixelRect(x: 0, y: 0, width: activeWidth, height: activeHeight).contains(rect) {
                    md.defaultCrop = rect
                } else {
                    tags.warn("DefaultCrop \(rect) exceeds the \(activeWidth)x\(activeHeight) active area; ignored")
                }
            } else {
                tags.warn("DefaultCropOrigin \(o) / DefaultCropSize \(s) malformed; ignored")
            }
        }

        if tags.get({ try raw.uint(TIFFTag.photometricInterpretation) }) == photometricCFA {
            md.cfa = readCFA(raw, left: left, top: top, &tags)
        }

        if let o = tags.get({ try raw.int(TIFFTag.orientation) }) {
            if (1...8).contains(o) { md.orientation = o } else { tags.warn("Orientation \(o) out of range 1...8; using 1") }
        }
        md.opcodeList1 = tags.get { try raw.bytes(TIFFTag.opcodeList1) }
        md.opcodeList2 = tags.get { try raw.bytes(TIFFTag.opcodeList2) }
        md.opcodeList3 = tags.get { try raw.bytes(TIFFTag.opcodeList3) }
    }

    /// CFARepeatPatternDim + CFAPattern (+ CFAPlaneColor) as a Bayer pattern seen from the
    /// active area's origin.
    package static func readCFA(_ raw: TIFFIFD, left: Int, top: Int, _ tags: inout LenientTags) -> CFAPattern? {
        let dim = tags.get { try raw.uints(TIFFTag.cfaRepeatPatternDim) } ?? [2, 2]
        guard dim == [2, 2] else { tags.warn("CFARepeatPatternDim \(dim) is not 2x2; CFA not supported"); return nil }
        guard let pattern = tags.get({ try raw.uints(TIFFTag.cfaPattern) }) else {
            tags.warn("CFA image without CFAPattern"); return nil
        }
        let planes = tags.get { try raw.uints(TIFFTag.cfaPlaneColor) } ?? [0, 1, 2]
        if let layout = tags.get({ try raw.uint(TIFFTag.cfaLayout) }), layout != 1 {
            tags.warn("CFALayout \(layout) (non-rectangular) not supported; CFA ignored"); return nil
        }
        guard pattern.count == 4 else { tags.warn("CFAPattern has \(pattern.count) values for a 2x2 pattern"); return nil }
        var colors: [CFAColor] = []
        for p in pattern {
            // CFAPattern values index CFAPlaneColor, whose values are 0 red, 1 green, 2 blue.
            guard Int(p) < planes.count, let c = CFAColor(rawValue: UInt8(clamping: planes[Int(p)])) else {
                tags.warn("CFAPattern value \(p) is not red, green or blue"); return nil
            }
            colors.append(c)
        }
        guard let cfa = CFAPattern(colors: colors) else { tags.warn("CFAPattern \(pattern) is not a Bayer pattern"); return nil }
        return cfa.shifted(dx: left, dy: top)
    }

    /// BlackLevel (+ repeat dims and deltas), WhiteLevel, LinearizationTable.
    package static func readLevels(_ raw: TIFFIFD, into md: inout RawMetadata, _ tags: inout LenientTags) {
        let spp = md.samplesPerPixel
        var rows = 1, cols = 1
        if let dim = tags.get({ try raw.uints(TIFFTag.blackLevelRepeatDim) }) {
            if dim.count == 2, (1...16).contains(dim[0]), (1...16).contains(dim[1]) {
                rows = Int(dim[0]); cols = Int(dim[1])
            } else {
                tags.warn("BlackLevelRepeatDim \(dim) invalid; using 1x1")
            }
        }
        if let black = tags.get({ try raw.doubles(TIFFTag.blackLevel) }) {
            if black.count == rows * cols * spp, black.allSatisfy({ $0.isFinite }) {
                md.blackLevelRepeatRows = rows; md.blackLevelRepeatColumns = cols
                md.blackLevel = black
            } else if black.count == 1, black[0].isFinite {
                md.blackLevel = [black[0]]
                tags.warn("BlackLevel has 1 value for a \(rows)x\(cols)x\(spp) pattern; using it for all")
            } else {
                tags.warn("BlackLevel has \(black.count) values, expected \(rows * cols * spp); ignored")
            }
        }
        md.blackLevelDeltaH = tags.get { try raw.doubles(TIFFTag.blackLevelDeltaH) }
        md.blackLevelDeltaV = tags.get { try raw.doubles(TIFFTag.blackLevelDeltaV) }
        let defaultWhite = Double((1 << min(md.bitsPerSample, 32)) - 1)
        if let white = tags.get({ try raw.doubles(TIFFTag.whiteLevel) }) {
            if white.count == spp || white.count == 1, white.allSatisfy({ $0.isFinite && $0 > 0 }) {
                md.whiteLevel = white.count == spp ? white : Array(repeating: white[0], count: spp)
            } else {
                tags.warn("WhiteLevel \(white) invalid for \(spp) samples; using \(defaultWhite)")
                md.whiteLevel = Array(repeating: defaultWhite, count: spp)
            }
        } else {
            md.whiteLevel = Array(repeating: defaultWhite, count: spp)
        }
        md.linearizationTableCount = raw.entry(TIFFTag.linearizationTable)?.count
        md.noiseProfile = tags.get { try raw.doubles(TIFFTag.noiseProfile) }
    }
}
