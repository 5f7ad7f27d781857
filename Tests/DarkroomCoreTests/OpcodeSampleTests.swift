import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomCore
import DarkroomFormats

/// Opcode lists of the real DNGs in ../shared/samples/dng, found with a tiny TIFF walk (IFD0, its
/// chain and SubIFDs), parsed, re-encoded and checked against their image size.
@Suite struct OpcodeSampleTests {
    static let dngDirectory = TestSupport.sharedSamplesPath.appendingPathComponent("dng")

    struct FoundList { var tag: Int; var bytes: [UInt8]; var width: Int; var height: Int; var samples: Int }

    /// Minimal bounds-checked TIFF walk: OpcodeList1/2/3 (51008, 51009, 51022) with the IFD's image size.
    static func opcodeLists(in d: [UInt8]) -> [FoundList] {
        guard d.count >= 8, (d[0] == 0x49 && d[1] == 0x49) || (d[0] == 0x4D && d[1] == 0x4D) else { return [] }
        let little = d[0] == 0x49
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= d.count else { return nil }
            return little ? Int(d[o]) | Int(d[o + 1]) << 8 : Int(d[o]) << 8 | Int(d[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        var found: [FoundList] = []
        var queue = [u32(4) ?? 0]
        var seen = Set<Int>()
        while let ifd = queue.popLast(), seen.count < 64 {
            guard ifd > 0, !seen.contains(ifd), let n = u16(ifd) else { continue }
            seen.insert(ifd)
            var width = 0, height = 0, samples = 1
            var lists: [(Int, [UInt8])] = []
            for i in 0..<n {
                let e = ifd + 2 + 12 * i
                guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { break }
                let size = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4][min(type, 13)] * count
                let valueAt = size <= 4 ? e + 8 : (u32(e + 8) ?? -1)
                func value(_ k: Int) -> Int? { type == 3 ? u16(valueAt + 2 * k) : u32(valueAt + 4 * k) }
                switch tag {
                case 256: width = value(0) ?? 0
                case 257: height = value(0) ?? 0
                case 277: samples = value(0) ?? 1
                case 330: for k in 0..<min(count, 16) { if let o = value(k) { queue.append(o) } }
                case 51008, 51009, 51022:
                    if valueAt >= 0, valueAt + count <= d.count { lists.append((tag, Array(d[valueAt..<(valueAt + count)]))) }
                default: break
                }
            }
            for (tag, bytes) in lists { found.append(FoundList(tag: tag, bytes: bytes, width: width, height: height, samples: samples)) }
            if let next = u32(ifd + 2 + 12 * n) { queue.append(next) }
        }
        return found
    }

    @Test func realOpcodeListsParse() throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: Self.dngDirectory.path) else { return }
        var report: [String: [String]] = [:]
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: Self.dngDirectory.appendingPathComponent(name).path) else { continue }
            for f in Self.opcodeLists(in: [UInt8](data)) {
                let list = try OpcodeList.parse(f.bytes)
                #expect(list.encode() == f.bytes, "\(name) tag \(f.tag) re-encodes")
                try list.validate(imageWidth: f.width, imageHeight: f.height, planes: f.samples)
                report[name, default: []].append("OpcodeList\(f.tag - 51007 == 15 ? 3 : f.tag - 51007) \(f.width)x\(f.height)x\(f.samples): "
                                                 + list.summary.joined(separator: " | "))
            }
        }
        for (name, lines) in report.sorted(by: { $0.key < $1.key }) { for l in lines { print("[opcodes] \(name): \(l)") } }
        guard !names.isEmpty else { return }
        // What the corpus is known to hold (MANIFEST.tsv): GoPro GainMaps, Adobe lossy MapPolynomials.
        if names.contains("gopro_hero6_GOPR0024.gpr") {
            let ops = report["gopro_hero6_GOPR0024.gpr"] ?? []
            #expect(ops.count == 1 && ops[0].components(separatedBy: "GainMap:").count == 5)
        }
        if names.contains("skia_sample_1mp.dng") {
            #expect((report["skia_sample_1mp.dng"] ?? []).allSatisfy { $0.components(separatedBy: "MapPolynomial:").count == 4 })
        }
    }
}
