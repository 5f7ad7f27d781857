import DarkroomCore

/// The strips or tiles of a DNG raw IFD (TIFF 6.0 sections 3 "Strips" and 15 "Tiles"): strips
/// are one column of blocks as wide as the image, tiles a grid, both numbered left to right, top
/// to bottom. The geometry every native DNG decoder shares, checked against the tags: positive
/// sizes, no overflow, one offset and one byte count per block the image needs.
package struct DNGBlockGrid: Sendable {
    /// "Strip" or "Tile", as in the tag names (for messages).
    package let kind: String
    /// Stored width and rows of one block (a strip's rows are capped at the image height).
    package let blockWidth: Int, blockLength: Int
    /// Blocks per row of blocks, and rows of blocks.
    package let across: Int, down: Int
    package let width: Int, height: Int
    /// StripOffsets / TileOffsets and the byte counts, one per block.
    package let offsets: [Int], byteCounts: [Int]

    package var count: Int { across * down }

    package init(_ layout: DNGRawDataLayout, path: String) throws(DecodeError) {
        let kind: String, blockWidth: Int, blockLength: Int
        switch layout.blocks {
        case .strips(let rowsPerStrip):
            guard rowsPerStrip > 0 else { throw .corrupt(path: path, detail: "RowsPerStrip is 0") }
            kind = "Strip"; blockWidth = layout.width; blockLength = min(rowsPerStrip, layout.height)
        case .tiles(let w, let l):
            guard w > 0, l > 0 else { throw .corrupt(path: path, detail: "tile size \(w)x\(l)") }
            kind = "Tile"; blockWidth = w; blockLength = l
        }
        let width = layout.width, height = layout.height
        guard width > 0, height > 0 else { throw .corrupt(path: path, detail: "image size \(width)x\(height)") }
        let across = (width - 1) / blockWidth + 1, down = (height - 1) / blockLength + 1
        let (needed, o1) = across.multipliedReportingOverflow(by: down)
        let (_, o2) = blockWidth.multipliedReportingOverflow(by: blockLength * max(1, layout.samplesPerPixel) * 16)
        guard !o1, !o2 else { throw .corrupt(path: path, detail: "\(kind.lowercased()) layout of a \(width)x\(height) image overflows") }
        guard layout.offsets.count == needed, layout.byteCounts.count == needed else {
            throw .corrupt(path: path, detail: "\(layout.offsets.count) \(kind)Offsets and \(layout.byteCounts.count) \(kind)ByteCounts for the \(needed) \(kind.lowercased())s of a \(width)x\(height) image")
        }
        self.kind = kind; self.blockWidth = blockWidth; self.blockLength = blockLength
        self.across = across; self.down = down; self.width = width; self.height = height
        self.offsets = layout.offsets; self.byteCounts = layout.byteCounts
    }

    /// The part of the stored image block `i` covers (edge blocks clipped to the image).
    package func rect(_ i: Int) -> PixelRect {
        let x = i % across * blockWidth, y = i / across * blockLength
        return PixelRect(x: x, y: y, width: min(blockWidth, width - x), height: min(blockLength, height - y))
    }
}
