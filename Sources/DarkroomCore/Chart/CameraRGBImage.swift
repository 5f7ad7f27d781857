/// A rendered image in balanced camera RGB, 32-bit float: white-balanced (camera neutral → 1, 1, 1,
/// clipped at 1 as the render clips), demosaiced, OpcodeList2/3 applied — the render's stage 5
/// output, before any colour matrix. Stored in the decoded (active-area) geometry; read in the
/// display geometry of `darkroom develop`'s output (DefaultCrop, then Orientation), so chart
/// coordinates are those of a developed image.
public struct CameraRGBImage: Sendable {
    /// Decoded size; `pixels` holds width × height × 3 values (R, G, B interleaved).
    public let width: Int
    public let height: Int
    public let pixels: [Float]
    /// The rendered area of the decoded image and how it is turned for display.
    public let crop: PixelRect
    public let orientation: Orientation

    public init(width: Int, height: Int, pixels: [Float], crop: PixelRect, orientation: Orientation) {
        self.width = width; self.height = height; self.pixels = pixels; self.crop = crop; self.orientation = orientation
    }

    /// Size of the displayed (cropped, oriented) image.
    public var displaySize: (width: Int, height: Int) { orientation.displaySize(width: crop.width, height: crop.height) }

    /// The crop-relative stored pixel that lands at display pixel (x, y): the inverse of `Orientation.map`.
    @inline(__always)
    public func storedPosition(displayX x: Int, displayY y: Int) -> (x: Int, y: Int) {
        let w = crop.width, h = crop.height
        switch orientation.value {
        case 2: return (w - 1 - x, y)
        case 3: return (w - 1 - x, h - 1 - y)
        case 4: return (x, h - 1 - y)
        case 5: return (y, x)
        case 6: return (y, h - 1 - x)
        case 7: return (w - 1 - y, h - 1 - x)
        case 8: return (w - 1 - y, x)
        default: return (x, y)
        }
    }

    /// Balanced camera RGB at display pixel (x, y) (inside `displaySize`).
    @inline(__always)
    public func pixel(displayX x: Int, displayY y: Int) -> SIMD3<Float> {
        let s = storedPosition(displayX: x, displayY: y)
        let i = ((s.y + crop.y) * width + s.x + crop.x) * 3
        return SIMD3(pixels[i], pixels[i + 1], pixels[i + 2])
    }
}
