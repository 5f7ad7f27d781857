/// The area specification shared by MapTable, MapPolynomial, GainMap and the Delta/Scale
/// opcodes (DNG 1.7 §7, "Area specification"): the rectangle `top..<bottom × left..<right`,
/// the planes `plane..<plane+planes`, and inside them only every `rowPitch`-th row and
/// `colPitch`-th column counted from `top`/`left` (pitch 2 selects one Bayer phase).
///
/// All four rectangle values zero means "the whole image", as the DNG SDK reads an empty area.
public struct OpcodeArea: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var top: UInt32, left: UInt32, bottom: UInt32, right: UInt32
    public var plane: UInt32, planes: UInt32
    public var rowPitch: UInt32, colPitch: UInt32

    public init(top: UInt32, left: UInt32, bottom: UInt32, right: UInt32,
                plane: UInt32 = 0, planes: UInt32 = 1, rowPitch: UInt32 = 1, colPitch: UInt32 = 1) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
        self.plane = plane; self.planes = planes; self.rowPitch = rowPitch; self.colPitch = colPitch
    }

    /// True for the all-zero rectangle that stands for the whole image.
    public var isWholeImage: Bool { top == 0 && left == 0 && bottom == 0 && right == 0 }

    /// Size in bytes of an area specification in the stream.
    static let byteCount = 32

    /// The rectangle as "(top,left)-(bottom,right)" plus planes and pitch.
    public var description: String {
        let rect = isWholeImage ? "whole image" : "(\(top),\(left))-(\(bottom),\(right))"
        let planeText = planes == 1 ? "plane \(plane)" : "planes \(plane)..<\(UInt64(plane) + UInt64(planes))"
        let pitch = rowPitch == 1 && colPitch == 1 ? "" : " pitch \(rowPitch)x\(colPitch)"
        return "\(rect) \(planeText)\(pitch)"
    }

    /// Checks the ranges the specification requires, independent of any image.
    package func validate(opcode: String) throws(OpcodeError) {
        if planes == 0 { throw .invalidParameter(opcode: opcode, reason: "Planes is 0") }
        if rowPitch == 0 || colPitch == 0 {
            throw .invalidParameter(opcode: opcode, reason: "RowPitch/ColPitch must be at least 1 (got \(rowPitch)x\(colPitch))")
        }
        if !isWholeImage && (bottom <= top || right <= left) {
            throw .invalidParameter(opcode: opcode, reason: "empty or inverted area \(description)")
        }
    }

    /// Number of selected rows (`ceil(height / rowPitch)`) for a non-empty area, else nil.
    package var selectedRowCount: Int? {
        isWholeImage ? nil : (Int(bottom) - Int(top) + Int(rowPitch) - 1) / Int(rowPitch)
    }
    package var selectedColumnCount: Int? {
        isWholeImage ? nil : (Int(right) - Int(left) + Int(colPitch) - 1) / Int(colPitch)
    }

    /// The area resolved against an image: the rectangle clipped to the image (the DNG SDK
    /// clips areas to the image; an area with no pixel inside the image is an error), the
    /// planes clipped to the image's planes (a first plane the image lacks is an error).
    func resolved(opcode: String, width: Int, height: Int, imagePlanes: Int) throws(OpcodeError) -> ResolvedArea {
        let r = ResolvedArea(self, width: width, height: height, imagePlanes: imagePlanes)
        if Int(plane) >= imagePlanes {
            throw .planeOutOfRange(opcode: opcode, plane: Int(plane), imagePlanes: imagePlanes)
        }
        if r.isEmpty { throw .areaOutsideImage(opcode: opcode, area: description, width: width, height: height) }
        return r
    }
}

/// An `OpcodeArea` resolved against an image: integer bounds clipped to it, with the
/// original top/left kept as the origin of the pitch grid and of per-row/column tables.
struct ResolvedArea {
    var originY: Int, originX: Int          // area top/left (pitch grid origin)
    var top: Int, left: Int, bottom: Int, right: Int   // clipped to the image
    var firstPlane: Int, endPlane: Int      // clipped to the image planes
    var rowPitch: Int, colPitch: Int

    init(_ a: OpcodeArea, width: Int, height: Int, imagePlanes: Int) {
        if a.isWholeImage {
            originY = 0; originX = 0; top = 0; left = 0; bottom = height; right = width
        } else {
            originY = Int(a.top); originX = Int(a.left)
            top = min(Int(a.top), height); left = min(Int(a.left), width)
            bottom = min(Int(a.bottom), height); right = min(Int(a.right), width)
        }
        firstPlane = Int(a.plane)
        endPlane = min(Int(a.plane) + Int(a.planes), imagePlanes)
        rowPitch = Int(a.rowPitch); colPitch = Int(a.colPitch)
    }

    var isEmpty: Bool { bottom <= top || right <= left || endPlane <= firstPlane }

    /// First selected coordinate ≥ `start` on a grid `origin + k·pitch`.
    @inline(__always)
    static func aligned(_ start: Int, origin: Int, pitch: Int) -> Int {
        let s = max(start, origin)
        return origin + (s - origin + pitch - 1) / pitch * pitch
    }
}
