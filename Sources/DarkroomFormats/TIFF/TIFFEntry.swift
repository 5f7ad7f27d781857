import DarkroomCore
/// One IFD entry as stored: tag, type, count and where its value bytes are. The value bytes are
/// checked against the file when an accessor reads them, so an entry that nobody asks for
/// (a broken MakerNote, say) never makes the file unreadable.
public struct TIFFEntry: Sendable, Equatable {
    public let tag: UInt16
    /// The raw type code; `fieldType` is nil for codes TIFF does not define.
    public let typeCode: UInt16
    public let count: Int
    /// Absolute offset of the value bytes (inside the entry when they fit in 4 bytes).
    public let valueOffset: Int
    /// `count × size(type)`, or nil when the type is unknown or the product overflows.
    public let byteCount: Int?

    public var fieldType: TIFFFieldType? { TIFFFieldType(rawValue: typeCode) }

    public init(tag: UInt16, typeCode: UInt16, count: Int, valueOffset: Int, byteCount: Int?) {
        self.tag = tag; self.typeCode = typeCode; self.count = count
        self.valueOffset = valueOffset; self.byteCount = byteCount
    }
}
