import DarkroomCore

extension ParsedOpcodeLists {
    /// Parses `metadata.opcodeList2` and `opcodeList3` (absent or empty tags stay nil).
    public init(_ metadata: RawMetadata) {
        func parse(_ bytes: [UInt8]?) -> Result<OpcodeList, OpcodeError>? {
            guard let bytes, !bytes.isEmpty else { return nil }
            return Result { () throws(OpcodeError) in try OpcodeList.parse(bytes) }
        }
        self.init(list2: parse(metadata.opcodeList2), list3: parse(metadata.opcodeList3))
    }
}
