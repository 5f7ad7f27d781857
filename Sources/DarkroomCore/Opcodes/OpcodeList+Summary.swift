// Human-readable lines for `darkroom info` / `darkroom explain`.

extension OpcodeList {
    /// One human line per opcode with its key parameters.
    public var summary: [String] { opcodes.map(\.summary) }
}

extension DNGOpcode {
    /// "GainMap (…): key parameters [optional, skip-if-preview]".
    public var summary: String {
        var tags: [String] = []
        if isOptional { tags.append("optional") }
        if isPreviewOnly { tags.append("skip-if-preview") }
        let suffix = tags.isEmpty ? "" : " [\(tags.joined(separator: ", "))]"
        return "\(name): \(parameterSummary)\(suffix)"
    }

    private var parameterSummary: String {
        func n(_ v: Double) -> String { format6(v) }
        func list(_ v: [Double]) -> String { v.map(n).joined(separator: ", ") }
        switch self {
        case let .warpRectilinear(p):
            let planes = p.planes.map { "kr [\(list($0.kr))] kt [\(list($0.kt))]" }.joined(separator: "; ")
            return "\(p.planes.count) plane set(s) \(planes), centre (\(n(p.cx)), \(n(p.cy)))"
        case let .warpFisheye(p):
            let planes = p.planes.map { "kr [\(list($0))]" }.joined(separator: "; ")
            return "\(p.planes.count) plane set(s) \(planes), centre (\(n(p.cx)), \(n(p.cy)))"
        case let .warpRectilinear2(p):
            let planes = p.planes.map {
                "kr [\(list($0.kr))] kt [\(list($0.kt))] radius \(n($0.minValidRadius))…\(n($0.maxValidRadius))"
            }.joined(separator: "; ")
            return "\(p.planes.count) plane set(s) \(planes), centre (\(n(p.cx)), \(n(p.cy)))\(p.reciprocalRadial != 0 ? ", reciprocal radial" : "")"
        case let .fixVignetteRadial(p):
            return "k [\(list(p.k))], centre (\(n(p.cx)), \(n(p.cy)))"
        case let .fixBadPixelsConstant(p):
            return "constant \(p.constant), BayerPhase \(p.bayerPhase)"
        case let .fixBadPixelsList(p):
            return "\(p.points.count) point(s), \(p.rects.count) rect(s), BayerPhase \(p.bayerPhase)"
        case let .trimBounds(p):
            return "(\(p.top),\(p.left))-(\(p.bottom),\(p.right))"
        case let .mapTable(p):
            return "\(p.area), \(p.table.count) entries, \(p.table.first ?? 0)…\(p.table.last ?? 0)"
        case let .mapPolynomial(p):
            return "\(p.area), degree \(p.coefficients.count - 1), c [\(list(p.coefficients))]"
        case let .gainMap(p):
            let lo = p.gains.min() ?? 0, hi = p.gains.max() ?? 0
            return "\(p.area), map \(p.mapPointsV)x\(p.mapPointsH)x\(p.mapPlanes), origin (\(n(p.mapOriginV)), \(n(p.mapOriginH))), "
                + "spacing (\(n(p.mapSpacingV)), \(n(p.mapSpacingH))), gain \(n(Double(lo)))…\(n(Double(hi)))"
        case let .deltaPerRow(p), let .deltaPerColumn(p), let .scalePerRow(p), let .scalePerColumn(p):
            let lo = p.values.min() ?? 0, hi = p.values.max() ?? 0
            return "\(p.area), \(p.values.count) values \(n(Double(lo)))…\(n(Double(hi)))"
        case let .unknown(id, version, flags, data):
            return "not applied (id \(id), DNG \(versionString(version)), flags \(flags), \(data.count) bytes)"
        }
    }
}
