import DarkroomCore
/// Post-edits the `meta` box of a HEIF file written by libheif (ISO/IEC 14496-12 + 23008-12),
/// to turn already-encoded image items into auxiliary images of the primary the way iPhones do:
///
/// - `iref` gains `auxl` from the auxiliary item to its master image,
/// - `ipco` gains an `auxC` property (version 0, the URN, NUL-terminated, no subtype) and `ipma`
///   associates it with the item, marked essential,
/// - the item's `infe` gets the hidden flag (bit 0 of its flags), as in iPhone files,
/// - `ftyp` compatible brands are de-duplicated (libheif 1.15 repeats them per encoded image),
/// - `iloc` file offsets of data stored after `meta` move by however much `meta` grew,
/// - a `grid` derived image (ISO/IEC 23008-12 §6.6.2.3) can be made of already-encoded tiles and
///   become the primary item, as iPhones store their primary image.
///
/// Only what libheif 1.15 writes is supported: one top-level `meta` with 32-bit box sizes,
/// `iloc` version 0–2 with construction method 0 (file offsets) or 1 (`idat`).
package struct ISOBMFFMetaEditor {
    private struct Box {
        var type: String
        var payload: [UInt8]
        var bytes: [UInt8] { BigEndian.u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
    }

    private let prefix: [UInt8]
    private let suffix: [UInt8]
    private let metaHeader: [UInt8]   // version + flags
    private let oldMetaEnd: Int
    private let oldMetaSize: Int
    private var children: [Box]

    package init(_ file: [UInt8]) throws(EncodeError) {
        var off = 0
        var meta: (start: Int, size: Int)?
        while off + 8 <= file.count {
            let size = Int(try Self.u32(file, off))
            let type = Self.fourCC(file, off + 4)
            guard size >= 8, off + size <= file.count else {
                throw .container(format: "HEIF", reason: "box '\(type)' at \(off) has size \(size) (file \(file.count) bytes)")
            }
            if type == "meta" { meta = (off, size); break }
            off += size
        }
        guard let meta else { throw .container(format: "HEIF", reason: "no top-level meta box") }
        prefix = Self.dedupeBrands(Array(file[0..<meta.start]))
        suffix = Array(file[(meta.start + meta.size)...])
        metaHeader = Array(file[(meta.start + 8)..<(meta.start + 12)])
        oldMetaEnd = meta.start + meta.size
        oldMetaSize = meta.size
        children = try Self.parseBoxes(Array(file[(meta.start + 12)..<(meta.start + meta.size)]), in: "meta")
    }

    /// Makes `item` an auxiliary image of `master` with auxiliary type `urn`.
    package mutating func makeAuxiliary(item: UInt32, of master: UInt32, urn: String, hidden: Bool = true) throws(EncodeError) {
        // auxC: version 0, the URN, NUL-terminated, no subtype; essential.
        try associate(item: item, type: "auxC", payload: [0, 0, 0, 0] + Array(urn.utf8) + [0], essential: true)

        try addReference(type: "auxl", from: item, to: [master])

        if hidden { try setHidden(item) }
    }

    /// Adds a `type` item reference (e.g. `thmb` from a thumbnail to its master).
    package mutating func addReference(type: String, from: UInt32, to: [UInt32]) throws(EncodeError) {
        let ref = Self.reference(type: type, from: from, to: to)
        if let iref = children.firstIndex(where: { $0.type == "iref" }) {
            guard let version = children[iref].payload.first else {
                throw .container(format: "HEIF", reason: "empty iref box")
            }
            guard version == 1 || (from <= 0xFFFF && to.allSatisfy { $0 <= 0xFFFF }) else {
                throw .container(format: "HEIF", reason: "item ID too large for iref version 0")
            }
            children[iref].payload += ref(version)
        } else {
            let wide = from > 0xFFFF || to.contains { $0 > 0xFFFF }
            let iref = Box(type: "iref", payload: [wide ? 1 : 0, 0, 0, 0] + ref(wide ? 1 : 0))
            let at = (children.firstIndex { $0.type == "iprp" }) ?? children.count
            children.insert(iref, at: at)
        }
    }

    /// Makes a `grid` item of `tiles` (row-major, `rows × columns`, all the same size) showing the
    /// top-left `width × height` of their mosaic, and returns its item ID:
    /// - `infe` version 2, type `grid`, not hidden; each tile's `infe` gets the hidden flag;
    /// - the ImageGridBox (version 0, 16-bit sizes unless a side exceeds 65535) in `idat`, located
    ///   by an `iloc` entry with construction method 1 (the `iloc` becomes version 1 if it was 0);
    /// - `properties` (e.g. `ispe`, `colr`, `pixi`) associated in order, each reusing an identical
    ///   `ipco` entry when one exists;
    /// - `dimg` from the grid to the tiles; `pitm` names the grid when `primary`.
    package mutating func addGrid(tiles: [UInt32], rows: Int, columns: Int, width: Int, height: Int,
                                  properties: [(type: String, payload: [UInt8], essential: Bool)],
                                  primary: Bool) throws(EncodeError) -> UInt32 {
        guard (1...256).contains(rows), (1...256).contains(columns), tiles.count == rows * columns,
              width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw .container(format: "HEIF", reason: "grid of \(rows)x\(columns) for \(tiles.count) tiles, \(width)x\(height)")
        }
        // Item info: a new ID after the largest one.
        guard let iinf = children.firstIndex(where: { $0.type == "iinf" }) else {
            throw .container(format: "HEIF", reason: "meta has no iinf box")
        }
        let p = children[iinf].payload
        guard p.count >= 6 else { throw .container(format: "HEIF", reason: "iinf truncated") }
        let wideCount = p[0] != 0
        var infes = try Self.parseBoxes(Array(p[(wideCount ? 8 : 6)...]), in: "iinf")
        var largest: UInt32 = 0
        for e in infes where e.type == "infe" && e.payload.count >= 8 && e.payload[0] >= 2 {
            largest = max(largest, e.payload[0] == 2 ? UInt32(try Self.u16(e.payload, 4)) : try Self.u32(e.payload, 4))
        }
        let (id, overflow) = largest.addingReportingOverflow(1)
        guard !overflow, id <= 0xFFFF else { throw .container(format: "HEIF", reason: "no item ID left for the grid") }
        infes.append(Box(type: "infe", payload: [2, 0, 0, 0] + BigEndian.u16(UInt16(id)) + [0, 0] + Array("grid".utf8) + [0]))
        guard wideCount || infes.count <= 0xFFFF else { throw .container(format: "HEIF", reason: "too many items") }
        let countBytes = wideCount ? BigEndian.u32(UInt32(infes.count)) : BigEndian.u16(UInt16(infes.count))
        children[iinf].payload = Array(p[0..<4]) + countBytes + infes.flatMap(\.bytes)

        // ImageGridBox in idat.
        let large = width > 0xFFFF || height > 0xFFFF
        let size: [UInt8] = large ? BigEndian.u32(UInt32(width)) + BigEndian.u32(UInt32(height))
                                  : BigEndian.u16(UInt16(width)) + BigEndian.u16(UInt16(height))
        let gridData: [UInt8] = [0, large ? 1 : 0, UInt8(rows - 1), UInt8(columns - 1)] + size
        let idat: Int
        if let i = children.firstIndex(where: { $0.type == "idat" }) { idat = i } else {
            children.append(Box(type: "idat", payload: [])); idat = children.count - 1
        }
        let dataOffset = children[idat].payload.count
        children[idat].payload += gridData
        guard let iloc = children.firstIndex(where: { $0.type == "iloc" }) else {
            throw .container(format: "HEIF", reason: "meta has no iloc box")
        }
        var locations = try ISOBMFFItemLocations(children[iloc].payload)
        locations.entries.append(.init(itemID: id, constructionMethod: 1, dataReferenceIndex: 0, baseOffset: 0,
                                       extents: [.init(index: 0, offset: UInt64(dataOffset), length: UInt64(gridData.count))]))
        children[iloc].payload = try locations.serialized()

        for property in properties {
            try associate(item: id, type: property.type, payload: property.payload, essential: property.essential, reuse: true)
        }
        try addReference(type: "dimg", from: id, to: tiles)
        for t in tiles { try setHidden(t) }
        if primary { try setPrimary(id) }
        return id
    }

    /// Points `pitm` at `item`.
    package mutating func setPrimary(_ item: UInt32) throws(EncodeError) {
        guard let pitm = children.firstIndex(where: { $0.type == "pitm" }), let version = children[pitm].payload.first else {
            throw .container(format: "HEIF", reason: "meta has no pitm box")
        }
        guard version == 1 || item <= 0xFFFF else { throw .container(format: "HEIF", reason: "item ID too large for pitm version 0") }
        children[pitm].payload = Array(children[pitm].payload.prefix(4)) + (version == 0 ? BigEndian.u16(UInt16(item)) : BigEndian.u32(item))
    }

    /// In every `type` reference, replaces the target `old` by `new` (e.g. `cdsc` metadata of the
    /// first tile moved to the grid).
    package mutating func retargetReferences(type: String, from old: UInt32, to new: UInt32) throws(EncodeError) {
        guard let iref = children.firstIndex(where: { $0.type == "iref" }), let version = children[iref].payload.first else { return }
        guard version == 1 || new <= 0xFFFF else { throw .container(format: "HEIF", reason: "item ID too large for iref version 0") }
        let p = children[iref].payload
        guard p.count >= 4 else { throw .container(format: "HEIF", reason: "iref truncated") }
        var refs = try Self.parseBoxes(Array(p[4...]), in: "iref")
        let idSize = version == 0 ? 2 : 4
        for r in refs.indices where refs[r].type == type {
            let b = refs[r].payload
            guard b.count >= idSize + 2 else { throw .container(format: "HEIF", reason: "iref '\(type)' truncated") }
            let n = Int(try Self.u16(b, idSize))
            guard b.count == idSize + 2 + n * idSize else { throw .container(format: "HEIF", reason: "iref '\(type)' has the wrong size") }
            for k in 0..<n {
                let at = idSize + 2 + k * idSize
                let to = idSize == 2 ? UInt32(try Self.u16(b, at)) : try Self.u32(b, at)
                guard to == old else { continue }
                let bytes = idSize == 2 ? BigEndian.u16(UInt16(new)) : BigEndian.u32(new)
                refs[r].payload.replaceSubrange(at..<(at + idSize), with: bytes)
            }
        }
        children[iref].payload = Array(p[0..<4]) + refs.flatMap(\.bytes)
    }

    /// Associates a property box with `item` (appended to `ipco`, or an identical one reused).
    package mutating func associate(item: UInt32, type: String, payload: [UInt8], essential: Bool,
                                    reuse: Bool = true) throws(EncodeError) {
        guard let iprp = children.firstIndex(where: { $0.type == "iprp" }) else {
            throw .container(format: "HEIF", reason: "meta has no iprp box")
        }
        var iprpChildren = try Self.parseBoxes(children[iprp].payload, in: "iprp")
        guard let ipco = iprpChildren.firstIndex(where: { $0.type == "ipco" }),
              let ipma = iprpChildren.firstIndex(where: { $0.type == "ipma" }) else {
            throw .container(format: "HEIF", reason: "iprp lacks ipco or ipma")
        }
        var properties = try Self.parseBoxes(iprpChildren[ipco].payload, in: "ipco")
        let index: Int
        if reuse, let i = properties.firstIndex(where: { $0.type == type && $0.payload == payload }) {
            index = i + 1
        } else {
            properties.append(Box(type: type, payload: payload))
            index = properties.count
            iprpChildren[ipco].payload = properties.flatMap(\.bytes)
        }
        iprpChildren[ipma].payload = try Self.addAssociation(iprpChildren[ipma].payload, item: item,
                                                             property: index, essential: essential)
        children[iprp].payload = iprpChildren.flatMap(\.bytes)
    }

    /// Sets the essential flag of every association of a `type` property (e.g. `pixi`) with
    /// `items` (every item when `nil`).
    package mutating func setEssential(_ essential: Bool, type: String, items: Set<UInt32>? = nil) throws(EncodeError) {
        guard let iprp = children.firstIndex(where: { $0.type == "iprp" }) else {
            throw .container(format: "HEIF", reason: "meta has no iprp box")
        }
        var iprpChildren = try Self.parseBoxes(children[iprp].payload, in: "iprp")
        guard let ipco = iprpChildren.firstIndex(where: { $0.type == "ipco" }),
              let ipma = iprpChildren.firstIndex(where: { $0.type == "ipma" }) else {
            throw .container(format: "HEIF", reason: "iprp lacks ipco or ipma")
        }
        let types = try Self.parseBoxes(iprpChildren[ipco].payload, in: "ipco").map(\.type)
        iprpChildren[ipma].payload = try Self.editAssociations(iprpChildren[ipma].payload) { entries in
            for e in entries.indices where items?.contains(entries[e].id) ?? true {
                for a in entries[e].assoc.indices {
                    let i = entries[e].assoc[a].index
                    if i >= 1, i <= types.count, types[i - 1] == type { entries[e].assoc[a].essential = essential }
                }
            }
        }
        children[iprp].payload = iprpChildren.flatMap(\.bytes)
    }

    /// `ftyp` with each compatible brand listed once (other leading boxes unchanged).
    private static func dedupeBrands(_ prefix: [UInt8]) -> [UInt8] {
        guard let boxes = try? parseBoxes(prefix, in: "file") else { return prefix }
        return boxes.flatMap { box -> [UInt8] in
            guard box.type == "ftyp", box.payload.count >= 8, box.payload.count % 4 == 0 else { return box.bytes }
            var seen = Set<[UInt8]>()
            var payload = Array(box.payload[0..<8])
            for i in stride(from: 8, to: box.payload.count, by: 4) {
                let brand = Array(box.payload[i..<(i + 4)])
                if seen.insert(brand).inserted { payload += brand }
            }
            return Box(type: "ftyp", payload: payload).bytes
        }
    }

    /// The edited file.
    package func serialize() throws(EncodeError) -> [UInt8] {
        var metaPayload = metaHeader + children.flatMap(\.bytes)
        let newMetaSize = 8 + metaPayload.count
        let delta = newMetaSize - oldMetaSize + (prefix.count - (oldMetaEnd - oldMetaSize))
        if delta != 0 {
            guard let iloc = children.firstIndex(where: { $0.type == "iloc" }) else {
                throw .container(format: "HEIF", reason: "meta has no iloc box")
            }
            var locations = try ISOBMFFItemLocations(children[iloc].payload)
            try locations.shift(by: delta, from: oldMetaEnd)
            var rebuilt = children
            rebuilt[iloc].payload = try locations.serialized()
            metaPayload = metaHeader + rebuilt.flatMap(\.bytes)
        }
        return prefix + BigEndian.u32(UInt32(8 + metaPayload.count)) + Array("meta".utf8) + metaPayload + suffix
    }

    // MARK: - Box surgery

    private mutating func setHidden(_ item: UInt32) throws(EncodeError) {
        guard let iinf = children.firstIndex(where: { $0.type == "iinf" }) else {
            throw .container(format: "HEIF", reason: "meta has no iinf box")
        }
        let p = children[iinf].payload
        guard p.count >= 6 else { throw .container(format: "HEIF", reason: "iinf truncated") }
        let countSize = p[0] == 0 ? 2 : 4
        let header = Array(p[0..<(4 + countSize)])
        var infes = try Self.parseBoxes(Array(p[(4 + countSize)...]), in: "iinf")
        var found = false
        for i in infes.indices where infes[i].type == "infe" {
            let e = infes[i].payload
            guard e.count >= 8, e[0] >= 2 else { continue }
            let id = e[0] == 2 ? UInt32(try Self.u16(e, 4)) : try Self.u32(e, 4)
            if id == item { infes[i].payload[3] |= 1; found = true }
        }
        guard found else { throw .container(format: "HEIF", reason: "no infe for item \(item)") }
        children[iinf].payload = header + infes.flatMap(\.bytes)
    }

    /// One SingleItemTypeReferenceBox, given the iref version (0: 16-bit IDs, 1: 32-bit).
    private static func reference(type: String, from: UInt32, to: [UInt32]) -> (UInt8) -> [UInt8] {
        { version in
            let id: (UInt32) -> [UInt8] = version == 0 ? { BigEndian.u16(UInt16(truncatingIfNeeded: $0)) } : { BigEndian.u32($0) }
            let body = id(from) + BigEndian.u16(UInt16(to.count)) + to.flatMap(id)
            return BigEndian.u32(UInt32(8 + body.count)) + Array(type.utf8) + body
        }
    }

    typealias Associations = [(id: UInt32, assoc: [(essential: Bool, index: Int)])]

    /// Re-serialises ipma with one more association for `item`, widening indices to 15 bits when needed.
    private static func addAssociation(_ p: [UInt8], item: UInt32, property: Int, essential: Bool) throws(EncodeError) -> [UInt8] {
        try editAssociations(p) { entries in
            if let i = entries.firstIndex(where: { $0.id == item }) {
                entries[i].assoc.append((essential, property))
            } else {
                entries.append((item, [(essential, property)]))
                entries.sort { $0.id < $1.id }
            }
        }
    }

    /// Parses ipma, lets `edit` change the entries, and re-serialises it (same version and
    /// flags; indices widened to 15 bits when one exceeds 127).
    private static func editAssociations(_ p: [UInt8], _ edit: (inout Associations) -> Void) throws(EncodeError) -> [UInt8] {
        guard p.count >= 8 else { throw .container(format: "HEIF", reason: "ipma truncated") }
        let version = p[0]
        let wideIndex = p[3] & 1 == 1
        let count = Int(try u32(p, 4))
        var off = 8
        var entries: Associations = []
        for _ in 0..<count {
            let id: UInt32
            if version < 1 { id = UInt32(try u16(p, off)); off += 2 } else { id = try u32(p, off); off += 4 }
            guard off < p.count else { throw .container(format: "HEIF", reason: "ipma truncated") }
            let n = Int(p[off]); off += 1
            var assoc: [(Bool, Int)] = []
            for _ in 0..<n {
                if wideIndex {
                    let v = try u16(p, off); off += 2
                    assoc.append((v & 0x8000 != 0, Int(v & 0x7FFF)))
                } else {
                    guard off < p.count else { throw .container(format: "HEIF", reason: "ipma truncated") }
                    assoc.append((p[off] & 0x80 != 0, Int(p[off] & 0x7F))); off += 1
                }
            }
            entries.append((id, assoc))
        }
        edit(&entries)
        let wide = wideIndex || entries.contains { $0.assoc.contains { $0.index > 127 } }
        guard !entries.contains(where: { $0.assoc.count > 255 || $0.assoc.contains { $0.index > 0x7FFF } }),
              version >= 1 || entries.allSatisfy({ $0.id <= 0xFFFF }) else {
            throw .container(format: "HEIF", reason: "too many item properties")
        }
        var out: [UInt8] = [version, p[1], p[2], (p[3] & ~1) | (wide ? 1 : 0)] + BigEndian.u32(UInt32(entries.count))
        for e in entries {
            out += version < 1 ? BigEndian.u16(UInt16(truncatingIfNeeded: e.id)) : BigEndian.u32(e.id)
            out.append(UInt8(e.assoc.count))
            for a in e.assoc {
                if wide { out += BigEndian.u16(UInt16(a.index) | (a.essential ? 0x8000 : 0)) }
                else { out.append(UInt8(a.index) | (a.essential ? 0x80 : 0)) }
            }
        }
        return out
    }

    private static func parseBoxes(_ b: [UInt8], in parent: String) throws(EncodeError) -> [Box] {
        var out: [Box] = []
        var off = 0
        while off + 8 <= b.count {
            let size = Int(try u32(b, off))
            guard size >= 8, off + size <= b.count else {
                throw .container(format: "HEIF", reason: "box in '\(parent)' at \(off) has size \(size)")
            }
            out.append(Box(type: fourCC(b, off + 4), payload: Array(b[(off + 8)..<(off + size)])))
            off += size
        }
        guard off == b.count else { throw .container(format: "HEIF", reason: "trailing bytes in '\(parent)'") }
        return out
    }

    /// Big-endian fields (ISOBMFF), through the one bounds-checked reader.
    private static func u16(_ b: [UInt8], _ at: Int) throws(EncodeError) -> UInt16 {
        do { return try ByteReader(bytes: b, bigEndian: true).u16(at) } catch {
            throw .container(format: "HEIF", reason: "truncated box")
        }
    }

    private static func u32(_ b: [UInt8], _ at: Int) throws(EncodeError) -> UInt32 {
        do { return try ByteReader(bytes: b, bigEndian: true).u32(at) } catch {
            throw .container(format: "HEIF", reason: "truncated box")
        }
    }

    private static func fourCC(_ b: [UInt8], _ at: Int) -> String {
        String(decoding: b[at..<(at + 4)], as: Unicode.ASCII.self)
    }
}
