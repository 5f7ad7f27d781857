import DarkroomCore
// Parameter parsing and encoding for each opcode (byte layouts from DNG 1.7 §7; WarpRectilinear2
// from DNG 1.6). Parsing validates every range the specification states.

/// Maximum colour planes an opcode may address (DNG SDK kMaxColorPlanes).
package let maxOpcodePlanes = 4

extension OpcodeList {
    package static func parseParameters(id: UInt32, version: UInt32, flags: UInt32,
                                reader r: inout BigEndianReader) throws(OpcodeError) -> DNGOpcode {
        let name = r.opcode
        func finite(_ values: [Double], _ what: String) throws(OpcodeError) {
            if !values.allSatisfy(\.isFinite) { throw .invalidParameter(opcode: name, reason: "\(what) must be finite") }
        }
        func centre(_ cx: Double, _ cy: Double) throws(OpcodeError) {
            if !(cx >= 0 && cx <= 1 && cy >= 0 && cy <= 1) {
                throw .invalidParameter(opcode: name, reason: "optical centre (\(cx), \(cy)) outside 0…1")
            }
        }
        func planeCount() throws(OpcodeError) -> Int {
            let n = try r.u32()
            if n < 1 || n > UInt32(maxOpcodePlanes) {
                throw .invalidParameter(opcode: name, reason: "plane count \(n) not in 1…\(maxOpcodePlanes)")
            }
            return Int(n)
        }
        func area() throws(OpcodeError) -> OpcodeArea {
            let a = OpcodeArea(top: try r.u32(), left: try r.u32(), bottom: try r.u32(), right: try r.u32(),
                               plane: try r.u32(), planes: try r.u32(), rowPitch: try r.u32(), colPitch: try r.u32())
            try a.validate(opcode: name)
            return a
        }

        switch id {
        case 1:
            let n = try planeCount()
            try r.need(n * 48 + 16)
            var planes: [DNGOpcode.WarpRectilinear.Plane] = []
            for _ in 0..<n {
                let kr = try r.f64s(4), kt = try r.f64s(2)
                try finite(kr + kt, "warp coefficients")
                planes.append(.init(kr: kr, kt: kt))
            }
            let cx = try r.f64(), cy = try r.f64()
            try centre(cx, cy)
            var p = DNGOpcode.WarpRectilinear(planes: planes, cx: cx, cy: cy, flags: flags)
            p.version = version
            return .warpRectilinear(p)
        case 2:
            let n = try planeCount()
            try r.need(n * 32 + 16)
            var planes: [[Double]] = []
            for _ in 0..<n {
                let kr = try r.f64s(4)
                try finite(kr, "warp coefficients")
                planes.append(kr)
            }
            let cx = try r.f64(), cy = try r.f64()
            try centre(cx, cy)
            var p = DNGOpcode.WarpFisheye(planes: planes, cx: cx, cy: cy, flags: flags)
            p.version = version
            return .warpFisheye(p)
        case 3:
            let k = try r.f64s(5)
            try finite(k, "vignette coefficients")
            let cx = try r.f64(), cy = try r.f64()
            try centre(cx, cy)
            var p = DNGOpcode.FixVignetteRadial(k: k, cx: cx, cy: cy, flags: flags)
            p.version = version
            return .fixVignetteRadial(p)
        case 4:
            let constant = try r.u32(), phase = try r.u32()
            if phase > 3 { throw .invalidParameter(opcode: name, reason: "BayerPhase \(phase) not in 0…3") }
            var p = DNGOpcode.FixBadPixelsConstant(constant: constant, bayerPhase: phase, flags: flags)
            p.version = version
            return .fixBadPixelsConstant(p)
        case 5:
            let phase = try r.u32(), pointCount = try r.u32(), rectCount = try r.u32()
            if phase > 3 { throw .invalidParameter(opcode: name, reason: "BayerPhase \(phase) not in 0…3") }
            let needed = UInt64(pointCount) * 8 + UInt64(rectCount) * 16
            if needed != UInt64(r.remaining) {
                throw .sizeMismatch(opcode: name, declared: 12 + r.remaining, expected: Int(clamping: needed + 12))
            }
            var points: [DNGOpcode.FixBadPixelsList.Point] = []
            points.reserveCapacity(Int(pointCount))
            for _ in 0..<pointCount { points.append(.init(row: try r.u32(), column: try r.u32())) }
            var rects: [DNGOpcode.FixBadPixelsList.Rect] = []
            rects.reserveCapacity(Int(rectCount))
            for _ in 0..<rectCount {
                let rect = DNGOpcode.FixBadPixelsList.Rect(top: try r.u32(), left: try r.u32(), bottom: try r.u32(), right: try r.u32())
                if rect.bottom <= rect.top || rect.right <= rect.left {
                    throw .invalidParameter(opcode: name, reason: "empty bad rectangle (\(rect.top),\(rect.left))-(\(rect.bottom),\(rect.right))")
                }
                rects.append(rect)
            }
            var p = DNGOpcode.FixBadPixelsList(bayerPhase: phase, points: points, rects: rects, flags: flags)
            p.version = version
            return .fixBadPixelsList(p)
        case 6:
            var p = DNGOpcode.TrimBounds(top: try r.u32(), left: try r.u32(), bottom: try r.u32(), right: try r.u32(), flags: flags)
            if p.bottom <= p.top || p.right <= p.left {
                throw .invalidParameter(opcode: name, reason: "empty bounds (\(p.top),\(p.left))-(\(p.bottom),\(p.right))")
            }
            p.version = version
            return .trimBounds(p)
        case 7:
            let a = try area()
            let count = try r.u32()
            if count < 1 || count > 65536 { throw .invalidParameter(opcode: name, reason: "table size \(count) not in 1…65536") }
            try r.need(Int(count) * 2)
            var table: [UInt16] = []
            table.reserveCapacity(Int(count))
            for _ in 0..<count { table.append(try r.u16()) }
            var p = DNGOpcode.MapTable(area: a, table: table, flags: flags)
            p.version = version
            return .mapTable(p)
        case 8:
            let a = try area()
            let degree = try r.u32()
            if degree > 8 { throw .invalidParameter(opcode: name, reason: "degree \(degree) exceeds 8") }
            let c = try r.f64s(Int(degree) + 1)
            try finite(c, "coefficients")
            var p = DNGOpcode.MapPolynomial(area: a, coefficients: c, flags: flags)
            p.version = version
            return .mapPolynomial(p)
        case 9:
            let a = try area()
            let pv = try r.u32(), ph = try r.u32()
            let sv = try r.f64(), sh = try r.f64(), ov = try r.f64(), oh = try r.f64()
            let mp = try r.u32()
            if pv < 1 || ph < 1 { throw .invalidParameter(opcode: name, reason: "map points \(pv)x\(ph) must be at least 1x1") }
            if !(sv > 0 && sh > 0 && sv.isFinite && sh.isFinite) {
                throw .invalidParameter(opcode: name, reason: "map spacing (\(sv), \(sh)) must be positive and finite")
            }
            try finite([ov, oh], "map origin")
            if mp < 1 { throw .invalidParameter(opcode: name, reason: "MapPlanes is 0") }
            // Three 32-bit counts: their product can exceed 64 bits (found by `make fuzz`).
            let (vh, o1) = UInt64(pv).multipliedReportingOverflow(by: UInt64(ph))
            let (n, o2) = vh.multipliedReportingOverflow(by: UInt64(mp))
            if o1 || o2 || n > UInt64(r.remaining) / 4 || n * 4 != UInt64(r.remaining) {
                throw .sizeMismatch(opcode: name, declared: r.remaining + 76,
                                    expected: o1 || o2 || n > UInt64(Int.max / 8) ? Int.max : Int(n) * 4 + 76)
            }
            var gains: [Float] = []
            gains.reserveCapacity(Int(n))
            for _ in 0..<n {
                let g = try r.f32()
                if !g.isFinite { throw .invalidParameter(opcode: name, reason: "map gains must be finite") }
                gains.append(g)
            }
            var p = DNGOpcode.GainMap(area: a, mapPointsV: pv, mapPointsH: ph, mapSpacingV: sv, mapSpacingH: sh,
                                      mapOriginV: ov, mapOriginH: oh, mapPlanes: mp, gains: gains, flags: flags)
            p.version = version
            return .gainMap(p)
        case 10, 11, 12, 13:
            let a = try area()
            let count = try r.u32()
            let perRow = id == 10 || id == 12
            if let expected = perRow ? a.selectedRowCount : a.selectedColumnCount, expected != Int(count) {
                throw .invalidParameter(opcode: name, reason: "\(count) values for \(expected) selected \(perRow ? "rows" : "columns")")
            }
            try r.need(Int(count) * 4)
            var values: [Float] = []
            values.reserveCapacity(Int(count))
            for _ in 0..<count {
                let v = try r.f32()
                if !v.isFinite { throw .invalidParameter(opcode: name, reason: "values must be finite") }
                values.append(v)
            }
            var p = DNGOpcode.PerLineTable(area: a, values: values, flags: flags)
            p.version = version
            switch id {
            case 10: return .deltaPerRow(p)
            case 11: return .deltaPerColumn(p)
            case 12: return .scalePerRow(p)
            default: return .scalePerColumn(p)
            }
        default: // 14
            let n = try planeCount()
            try r.need(n * 19 * 8 + 20)
            var planes: [DNGOpcode.WarpRectilinear2.Plane] = []
            for _ in 0..<n {
                let kr = try r.f64s(15), kt = try r.f64s(2)
                let lo = try r.f64(), hi = try r.f64()
                try finite(kr + kt, "warp coefficients")
                if !(lo >= 0 && lo < hi && hi <= 1) {
                    throw .invalidParameter(opcode: name, reason: "valid radius range \(lo)…\(hi) must satisfy 0 ≤ min < max ≤ 1")
                }
                planes.append(.init(kr: kr, kt: kt, minValidRadius: lo, maxValidRadius: hi))
            }
            let cx = try r.f64(), cy = try r.f64()
            try centre(cx, cy)
            let reciprocal = try r.u32()
            var p = DNGOpcode.WarpRectilinear2(planes: planes, cx: cx, cy: cy, reciprocalRadial: reciprocal, flags: flags)
            p.version = version
            return .warpRectilinear2(p)
        }
    }
}

extension DNGOpcode {
    package func encodeParameters(into w: inout BigEndianWriter) {
        func area(_ a: OpcodeArea) {
            for v in [a.top, a.left, a.bottom, a.right, a.plane, a.planes, a.rowPitch, a.colPitch] { w.u32(v) }
        }
        switch self {
        case let .warpRectilinear(p):
            w.u32(UInt32(p.planes.count))
            for pl in p.planes { w.f64s(pl.kr); w.f64s(pl.kt) }
            w.f64(p.cx); w.f64(p.cy)
        case let .warpFisheye(p):
            w.u32(UInt32(p.planes.count))
            for pl in p.planes { w.f64s(pl) }
            w.f64(p.cx); w.f64(p.cy)
        case let .fixVignetteRadial(p):
            w.f64s(p.k); w.f64(p.cx); w.f64(p.cy)
        case let .fixBadPixelsConstant(p):
            w.u32(p.constant); w.u32(p.bayerPhase)
        case let .fixBadPixelsList(p):
            w.u32(p.bayerPhase); w.u32(UInt32(p.points.count)); w.u32(UInt32(p.rects.count))
            for pt in p.points { w.u32(pt.row); w.u32(pt.column) }
            for rc in p.rects { w.u32(rc.top); w.u32(rc.left); w.u32(rc.bottom); w.u32(rc.right) }
        case let .trimBounds(p):
            w.u32(p.top); w.u32(p.left); w.u32(p.bottom); w.u32(p.right)
        case let .mapTable(p):
            area(p.area); w.u32(UInt32(p.table.count))
            for v in p.table { w.u16(v) }
        case let .mapPolynomial(p):
            area(p.area); w.u32(UInt32(max(p.coefficients.count - 1, 0)))
            w.f64s(p.coefficients)
        case let .gainMap(p):
            area(p.area); w.u32(p.mapPointsV); w.u32(p.mapPointsH)
            w.f64(p.mapSpacingV); w.f64(p.mapSpacingH); w.f64(p.mapOriginV); w.f64(p.mapOriginH)
            w.u32(p.mapPlanes)
            for g in p.gains { w.f32(g) }
        case let .deltaPerRow(p), let .deltaPerColumn(p), let .scalePerRow(p), let .scalePerColumn(p):
            area(p.area); w.u32(UInt32(p.values.count))
            for v in p.values { w.f32(v) }
        case let .warpRectilinear2(p):
            w.u32(UInt32(p.planes.count))
            for pl in p.planes { w.f64s(pl.kr); w.f64s(pl.kt); w.f64(pl.minValidRadius); w.f64(pl.maxValidRadius) }
            w.f64(p.cx); w.f64(p.cy); w.u32(p.reciprocalRadial)
        case let .unknown(_, _, _, data):
            w.bytes.append(contentsOf: data)
        }
    }
}
