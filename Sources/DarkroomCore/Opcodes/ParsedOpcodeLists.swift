/// A file's OpcodeList2 and OpcodeList3 after parsing: nil where the tag is absent or empty, the
/// parse error where its bytes are invalid (the plan reports it only when the list would run).
///
/// Core never parses file bytes; `ParsedOpcodeLists(metadata)` in DarkroomFormats fills this
/// from `RawMetadata.opcodeList2/3`.
public struct ParsedOpcodeLists: Sendable {
    public var list2: Result<OpcodeList, OpcodeError>?
    public var list3: Result<OpcodeList, OpcodeError>?
    public init(list2: Result<OpcodeList, OpcodeError>? = nil, list3: Result<OpcodeList, OpcodeError>? = nil) {
        self.list2 = list2
        self.list3 = list3
    }
}
