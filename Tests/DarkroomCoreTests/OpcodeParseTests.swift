import Testing
@testable import DarkroomCore
import DarkroomFormats

@Suite struct OpcodeParseTests {
    @Test(arguments: OpcodeFixtures.all)
    func roundTripsEveryOpcode(op: DNGOpcode) throws {
        let list = OpcodeList(opcodes: [op, op])
        let bytes = list.encode()
        let parsed = try OpcodeList.parse(bytes)
        #expect(parsed == list)
        #expect(parsed.encode() == bytes)
        #expect(parsed.opcodes[0].name == op.name)
    }

    @Test func roundTripsWholeList() throws {
        let list = OpcodeList(opcodes: OpcodeFixtures.all)
        let bytes = list.encode()
        #expect(try OpcodeList.parse(bytes) == list)
        #expect(list.summary.count == list.opcodes.count)
        #expect(list.opcodes.map(\.id) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 99])
    }

    /// A GainMap written byte by byte from the DNG 1.7 layout parses to the expected values.
    @Test func parsesHandWrittenGainMap() throws {
        var b = BE()
        b.u32(1)                                   // opcode count
        b.u32(9); b.u32(0x0103_0000); b.u32(1)     // GainMap, DNG 1.3, optional
        b.u32(76 + 4 * 4)                          // parameter bytes
        for v: UInt32 in [0, 0, 3000, 4000, 1, 1, 2, 2] { b.u32(v) }  // area
        b.u32(2); b.u32(2)                         // MapPointsV/H
        b.f64(1); b.f64(1); b.f64(0); b.f64(0)     // spacing V/H, origin V/H
        b.u32(1)                                   // MapPlanes
        for g: Float in [1, 2, 3, 4] { b.f32(g) }
        let list = try OpcodeList.parse(b.bytes)
        guard case let .gainMap(g) = list.opcodes[0] else { Issue.record("not a GainMap"); return }
        #expect(g.area == OpcodeArea(top: 0, left: 0, bottom: 3000, right: 4000, plane: 1, planes: 1, rowPitch: 2, colPitch: 2))
        #expect(g.mapPointsV == 2 && g.mapPointsH == 2 && g.mapPlanes == 1 && g.gains == [1, 2, 3, 4])
        #expect(list.opcodes[0].isOptional && !list.opcodes[0].isPreviewOnly)
        #expect(list.encode() == b.bytes)
        #expect(list.summary[0].hasPrefix("GainMap: (0,0)-(3000,4000) plane 1 pitch 2x2, map 2x2x1"))
    }

    @Test func parsesHandWrittenMapPolynomialAndTable() throws {
        var b = BE()
        b.u32(2)
        b.u32(8); b.u32(0x0103_0000); b.u32(0); b.u32(32 + 4 + 16)
        for v: UInt32 in [0, 0, 0, 0, 0, 3, 1, 1] { b.u32(v) }
        b.u32(1); b.f64(0.25); b.f64(0.5)
        b.u32(7); b.u32(0x0103_0000); b.u32(2); b.u32(32 + 4 + 6)
        for v: UInt32 in [0, 0, 4, 4, 0, 1, 1, 1] { b.u32(v) }
        b.u32(3); b.u16(7); b.u16(8); b.u16(65535)
        let list = try OpcodeList.parse(b.bytes)
        #expect(list.opcodes == [
            .mapPolynomial(.init(area: OpcodeArea(top: 0, left: 0, bottom: 0, right: 0, plane: 0, planes: 3), coefficients: [0.25, 0.5])),
            .mapTable(.init(area: OpcodeArea(top: 0, left: 0, bottom: 4, right: 4), table: [7, 8, 65535], flags: 2)),
        ])
        #expect(list.opcodes[1].isPreviewOnly)
        #expect(list.isPointwise)
    }

    @Test func truncatedEverywhereThrows() throws {
        let bytes = OpcodeList(opcodes: OpcodeFixtures.all).encode()
        for n in 0..<bytes.count {
            #expect(throws: OpcodeError.self) { try OpcodeList.parse(Array(bytes[0..<n])) }
        }
        #expect(throws: OpcodeError.trailingBytes(count: 1)) { try OpcodeList.parse(bytes + [0]) }
    }

    @Test func hugeCountsThrow() {
        #expect(throws: OpcodeError.countTooLarge(count: 0xFFFF_FFFF, bytes: 4)) { try OpcodeList.parse([255, 255, 255, 255]) }
        // A GainMap claiming 65535x65535 points with a tiny payload.
        var b = BE()
        b.u32(1); b.u32(9); b.u32(0x0103_0000); b.u32(0); b.u32(76)
        for v: UInt32 in [0, 0, 10, 10, 0, 1, 1, 1] { b.u32(v) }
        b.u32(65535); b.u32(65535); b.f64(1); b.f64(1); b.f64(0); b.f64(0); b.u32(1)
        #expect(throws: OpcodeError.sizeMismatch(opcode: "GainMap", declared: 76, expected: 76 + 65535 * 65535 * 4)) {
            try OpcodeList.parse(b.bytes)
        }
        // FixBadPixelsList claiming 2^32-1 points.
        var c = BE()
        c.u32(1); c.u32(5); c.u32(0x0103_0000); c.u32(0); c.u32(12)
        c.u32(0); c.u32(0xFFFF_FFFF); c.u32(0)
        #expect(throws: OpcodeError.self) { try OpcodeList.parse(c.bytes) }
        // MapTable with a table size over 65536.
        var d = BE()
        d.u32(1); d.u32(7); d.u32(0x0103_0000); d.u32(0); d.u32(36)
        for v: UInt32 in [0, 0, 10, 10, 0, 1, 1, 1] { d.u32(v) }
        d.u32(70000)
        #expect(throws: OpcodeError.invalidParameter(opcode: "MapTable", reason: "table size 70000 not in 1…65536")) {
            try OpcodeList.parse(d.bytes)
        }
    }

    @Test func zeroPitchAndBadParametersThrowUnlessOptional() throws {
        var table = DNGOpcode.MapTable(area: OpcodeArea(top: 0, left: 0, bottom: 4, right: 4, rowPitch: 0), table: [1])
        var bytes = OpcodeList(opcodes: [.mapTable(table)]).encode()
        #expect(throws: OpcodeError.invalidParameter(opcode: "MapTable", reason: "RowPitch/ColPitch must be at least 1 (got 0x1)")) {
            try OpcodeList.parse(bytes)
        }
        table.flags = DNGOpcode.flagOptional
        bytes = OpcodeList(opcodes: [.mapTable(table)]).encode()
        let list = try OpcodeList.parse(bytes)
        guard case .unknown(7, _, 1, _) = list.opcodes[0] else { Issue.record("expected skipped opcode"); return }
        #expect(list.encode() == bytes)
        #expect(list.warnings.count == 1)
        // Inverted area, zero planes, bad centre, bad phase.
        let bad: [DNGOpcode] = [
            .mapPolynomial(.init(area: OpcodeArea(top: 5, left: 0, bottom: 4, right: 4), coefficients: [0, 1])),
            .mapPolynomial(.init(area: OpcodeArea(top: 0, left: 0, bottom: 4, right: 4, planes: 0), coefficients: [0, 1])),
            .fixVignetteRadial(.init(k: [0, 0, 0, 0, 0], cx: 1.5, cy: 0.5)),
            .fixBadPixelsConstant(.init(constant: 0, bayerPhase: 4)),
            .gainMap(.init(area: OpcodeFixtures.area, mapPointsV: 1, mapPointsH: 1, mapSpacingV: 0, mapSpacingH: 1,
                           mapOriginV: 0, mapOriginH: 0, mapPlanes: 1, gains: [1])),
            .deltaPerRow(.init(area: OpcodeFixtures.area, values: [1, 2])),
        ]
        for op in bad {
            #expect(throws: OpcodeError.self) { try OpcodeList.parse(OpcodeList(opcodes: [op]).encode()) }
        }
    }

    @Test func areaOutsideImageAndUnknownOpcodes() throws {
        let outside = OpcodeList(opcodes: [.mapPolynomial(.init(area: OpcodeArea(top: 100, left: 0, bottom: 200, right: 4), coefficients: [0, 1]))])
        #expect(throws: OpcodeError.areaOutsideImage(opcode: "MapPolynomial", area: "(100,0)-(200,4) plane 0", width: 8, height: 8)) {
            try outside.validate(imageWidth: 8, imageHeight: 8, planes: 1)
        }
        var px = [Float](repeating: 0.5, count: 64)
        var w = 8, h = 8
        #expect(throws: OpcodeError.self) { try outside.applyWhole(to: &px, width: &w, height: &h, planes: 1, cfa: .rggb) }
        let plane = OpcodeList(opcodes: [.mapPolynomial(.init(area: OpcodeArea(top: 0, left: 0, bottom: 4, right: 4, plane: 2), coefficients: [0, 1]))])
        #expect(throws: OpcodeError.planeOutOfRange(opcode: "MapPolynomial", plane: 2, imagePlanes: 1)) {
            try plane.validate(imageWidth: 8, imageHeight: 8, planes: 1)
        }
        let required = OpcodeList(opcodes: [.unknown(id: 42, version: 0x0103_0000, flags: 0, data: [])])
        #expect(!required.isPointwise)
        #expect(throws: OpcodeError.unsupported(opcode: "Opcode42", reason: "unknown opcode id 42 (0 parameter bytes)")) {
            try required.applyWhole(to: &px, width: &w, height: &h, planes: 1, cfa: nil)
        }
        let optional = OpcodeList(opcodes: [.unknown(id: 42, version: 0x0103_0000, flags: 1, data: [9])])
        #expect(optional.isPointwise)
        try optional.applyWhole(to: &px, width: &w, height: &h, planes: 1, cfa: nil)
        #expect(px == [Float](repeating: 0.5, count: 64))
        #expect(optional.warnings == ["Opcode42 (id 42, DNG 1.3.0.0, 1 bytes): optional opcode not applied"])
        // A known opcode from a DNG version newer than 1.7 is kept but not applied.
        var b = BE()
        b.u32(1); b.u32(9); b.u32(0x0109_0000); b.u32(0); b.u32(2); b.bytes += [1, 2]
        let future = try OpcodeList.parse(b.bytes)
        #expect(future.opcodes == [.unknown(id: 9, version: 0x0109_0000, flags: 0, data: [1, 2])])
        #expect(future.encode() == b.bytes)
        #expect(throws: OpcodeError.self) { try future.validate(imageWidth: 8, imageHeight: 8, planes: 1) }
        #expect(OpcodeList(opcodes: OpcodeFixtures.all).forPreview.opcodes.count == OpcodeFixtures.all.count - 1)
    }

    /// 2000 deterministic byte mutations of a valid list: parsing either throws or gives a list
    /// that re-encodes to the same bytes; applying what parses never traps.
    @Test func byteFlipFuzz() throws {
        let base = OpcodeList(opcodes: OpcodeFixtures.all).encode()
        var rng = LCG(state: 0x5EED)
        var parsed = 0
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0..<(1 + rng.int(4)) {
                let i = rng.int(bytes.count)
                switch rng.int(3) {
                case 0: bytes[i] ^= UInt8(1 << rng.int(8))
                case 1: bytes[i] = UInt8(rng.int(256))
                default: bytes[i] = [0, 255, 1, 0x7F][rng.int(4)]
                }
            }
            if rng.int(8) == 0 { bytes.removeLast(rng.int(min(64, bytes.count))) }
            guard let list = try? OpcodeList.parse(bytes) else { continue }
            parsed += 1
            #expect(list.encode() == bytes)
            _ = list.summary
            for planes in [1, 3] {
                var px = [Float](repeating: 0.25, count: 16 * 12 * planes)
                var w = 16, h = 12
                _ = try? list.applyWhole(to: &px, width: &w, height: &h, planes: planes, cfa: planes == 1 ? .rggb : nil)
            }
            var raw = [UInt16](repeating: 1000, count: 16 * 12)
            _ = try? list.applyRaw(to: &raw, width: 16, height: 12, planes: 1, cfa: .rggb, whiteLevel: 4095)
        }
        print("[opcodes] fuzz: \(parsed) of 2000 mutated lists parsed")
        #expect(parsed > 100)
    }
}
