/// EXIF/TIFF orientation (1…8): how the stored pixels must be transformed for display.
public struct Orientation: Sendable, Equatable, Codable, CustomStringConvertible {
    public let value: Int
    public init(_ value: Int) { self.value = (1...8).contains(value) ? value : 1 }

    /// Whether width and height swap (orientations 5–8).
    public var swapsAxes: Bool { value >= 5 }

    /// The display size of a stored `width × height` image.
    public func displaySize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Where stored pixel (x, y) of a `width × height` image lands in the displayed image.
    @inline(__always)
    public func map(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch value {
        case 2: return (width - 1 - x, y)
        case 3: return (width - 1 - x, height - 1 - y)
        case 4: return (x, height - 1 - y)
        case 5: return (y, x)
        case 6: return (height - 1 - y, x)
        case 7: return (height - 1 - y, width - 1 - x)
        case 8: return (y, width - 1 - x)
        default: return (x, y)
        }
    }

    public var description: String {
        ["", "normal", "mirror horizontal", "rotate 180", "mirror vertical", "transpose",
         "rotate 90 CW", "transverse", "rotate 270 CW"][value]
    }
}
