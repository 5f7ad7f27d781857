// Checks an opcode list against the image it will run on, before any pixel changes.

extension OpcodeList {
    /// Checks every opcode against an image of this size and plane count (TrimBounds shrinks the
    /// size seen by the opcodes after it): areas must overlap the image (an area partly outside is
    /// clipped, as the DNG SDK clips it), first planes must exist, warp plane counts must be 1 or
    /// the image's, bad-pixel opcodes need a 1-plane mosaic, bad points/rects and TrimBounds must lie
    /// inside the image, and unknown opcodes must be optional. Optional opcodes that fail are
    /// reported by `skippedOpcodes` instead of throwing.
    /// - Returns: the image size after the list.
    @discardableResult
    public func validate(imageWidth: Int, imageHeight: Int, planes: Int) throws(OpcodeError) -> (width: Int, height: Int) {
        var w = imageWidth, h = imageHeight
        for op in opcodes {
            do throws(OpcodeError) {
                try op.check(width: w, height: h, planes: planes)
                if case let .trimBounds(t) = op { w = Int(t.right - t.left); h = Int(t.bottom - t.top) }
            } catch {
                if !op.isOptional { throw error }
            }
        }
        return (w, h)
    }

    /// The opcodes an apply call would skip on this image (optional and unknown, or optional and
    /// not fitting it), each with the reason — for warnings.
    public func skippedOpcodes(imageWidth: Int, imageHeight: Int, planes: Int) -> [String] {
        var w = imageWidth, h = imageHeight
        var out: [String] = []
        for op in opcodes {
            do throws(OpcodeError) {
                try op.check(width: w, height: h, planes: planes)
                if case let .trimBounds(t) = op { w = Int(t.right - t.left); h = Int(t.bottom - t.top) }
            } catch {
                if op.isOptional { out.append("skipped optional opcode: \(error.description)") }
            }
        }
        return out
    }
}

extension DNGOpcode {
    /// Throws when this opcode cannot run on a `width × height × planes` image.
    func check(width: Int, height: Int, planes: Int) throws(OpcodeError) {
        if width < 1 || height < 1 || planes < 1 {
            throw .bufferMismatch(reason: "empty image \(width)x\(height)x\(planes)")
        }
        func perLine(_ p: PerLineTable, perRow: Bool) throws(OpcodeError) {
            _ = try p.area.resolved(opcode: name, width: width, height: height, imagePlanes: planes)
            if p.area.isWholeImage {
                let needed = perRow ? (height + Int(p.area.rowPitch) - 1) / Int(p.area.rowPitch)
                                    : (width + Int(p.area.colPitch) - 1) / Int(p.area.colPitch)
                if p.values.count < needed {
                    throw .invalidParameter(opcode: name, reason: "\(p.values.count) values for \(needed) selected \(perRow ? "rows" : "columns") of the whole image")
                }
            }
        }
        func warpPlanes(_ n: Int) throws(OpcodeError) {
            if n != 1 && n != planes {
                throw .invalidParameter(opcode: name, reason: "\(n) coefficient sets for a \(planes)-plane image (need 1 or \(planes))")
            }
        }
        func mosaic() throws(OpcodeError) {
            if planes != 1 { throw .unsupported(opcode: name, reason: "needs a 1-plane CFA image, got \(planes) planes") }
        }
        func inside(_ top: UInt32, _ left: UInt32, _ bottom: Int, _ right: Int) throws(OpcodeError) {
            if bottom > height || right > width {
                throw .areaOutsideImage(opcode: name, area: "(\(top),\(left))-(\(bottom),\(right))", width: width, height: height)
            }
        }
        switch self {
        case let .mapTable(p): _ = try p.area.resolved(opcode: name, width: width, height: height, imagePlanes: planes)
        case let .mapPolynomial(p): _ = try p.area.resolved(opcode: name, width: width, height: height, imagePlanes: planes)
        case let .gainMap(p): _ = try p.area.resolved(opcode: name, width: width, height: height, imagePlanes: planes)
        case let .deltaPerRow(p), let .scalePerRow(p): try perLine(p, perRow: true)
        case let .deltaPerColumn(p), let .scalePerColumn(p): try perLine(p, perRow: false)
        case .fixVignetteRadial: break
        case let .warpRectilinear(p): try warpPlanes(p.planes.count)
        case let .warpFisheye(p): try warpPlanes(p.planes.count)
        case let .warpRectilinear2(p): try warpPlanes(p.planes.count)
        case .fixBadPixelsConstant: try mosaic()
        case let .fixBadPixelsList(p):
            try mosaic()
            for pt in p.points { try inside(pt.row, pt.column, Int(pt.row) + 1, Int(pt.column) + 1) }
            for r in p.rects { try inside(r.top, r.left, Int(r.bottom), Int(r.right)) }
        case let .trimBounds(p): try inside(p.top, p.left, Int(p.bottom), Int(p.right))
        case let .unknown(id, version, _, data):
            let reason: String
            if id >= 1 && id <= 14 && version <= DNGOpcode.newestSupportedVersion {
                reason = "its parameters were rejected while parsing"
            } else if version > DNGOpcode.newestSupportedVersion {
                reason = "it needs DNG \(versionString(version)), newer than 1.7"
            } else {
                reason = "unknown opcode id \(id) (\(data.count) parameter bytes)"
            }
            throw .unsupported(opcode: name, reason: reason)
        }
    }
}
