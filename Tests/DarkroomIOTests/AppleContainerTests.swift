import CHeif
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// A minimal, independent ISOBMFF `meta` reader for layout checks (items, hidden flags, iref,
/// ipco properties, ipma associations).
struct HEIFMetaLayout {
    struct Property { var type: String; var payload: [UInt8] }
    var primary: UInt32 = 0
    var hidden: [UInt32: Bool] = [:]
    var itemTypes: [UInt32: String] = [:]
    var references: [(type: String, from: UInt32, to: [UInt32])] = []
    var properties: [Property] = []
    var associations: [UInt32: [(essential: Bool, index: Int)]] = [:]

    init?(_ b: [UInt8]) {
        func u16(_ o: Int) -> Int { Int(b[o]) << 8 | Int(b[o + 1]) }
        func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
        func fourCC(_ o: Int) -> String { String(decoding: b[o..<(o + 4)], as: UTF8.self) }
        func boxes(_ start: Int, _ end: Int) -> [(type: String, body: Int, end: Int)] {
            var out: [(String, Int, Int)] = []
            var o = start
            while o + 8 <= end {
                let size = u32(o)
                guard size >= 8, o + size <= end else { break }
                out.append((fourCC(o + 4), o + 8, o + size))
                o += size
            }
            return out
        }
        guard let meta = boxes(0, b.count).first(where: { $0.type == "meta" }) else { return nil }
        for box in boxes(meta.body + 4, meta.end) {
            switch box.type {
            case "pitm": primary = UInt32(b[box.body] == 0 ? u16(box.body + 4) : u32(box.body + 4))
            case "iinf":
                let first = box.body + (b[box.body] == 0 ? 6 : 8)
                for e in boxes(first, box.end) where e.type == "infe" && b[e.body] >= 2 {
                    let id = UInt32(b[e.body] == 2 ? u16(e.body + 4) : u32(e.body + 4))
                    hidden[id] = b[e.body + 3] & 1 == 1
                    itemTypes[id] = fourCC(e.body + (b[e.body] == 2 ? 8 : 10))
                }
            case "iref":
                let wide = b[box.body] == 1
                for r in boxes(box.body + 4, box.end) {
                    var o = r.body
                    let from = wide ? u32(o) : u16(o); o += wide ? 4 : 2
                    let n = u16(o); o += 2
                    var to: [UInt32] = []
                    for _ in 0..<n { to.append(UInt32(wide ? u32(o) : u16(o))); o += wide ? 4 : 2 }
                    references.append((r.type, UInt32(from), to))
                }
            case "iprp":
                for c in boxes(box.body, box.end) {
                    if c.type == "ipco" {
                        properties = boxes(c.body, c.end).map { Property(type: $0.type, payload: Array(b[$0.body..<$0.end])) }
                    } else if c.type == "ipma" {
                        let version = b[c.body], wideIndex = b[c.body + 3] & 1 == 1
                        var o = c.body + 8
                        for _ in 0..<u32(c.body + 4) {
                            let id = version < 1 ? u16(o) : u32(o); o += version < 1 ? 2 : 4
                            let n = Int(b[o]); o += 1
                            var list: [(Bool, Int)] = []
                            for _ in 0..<n {
                                if wideIndex { let v = u16(o); list.append((v & 0x8000 != 0, v & 0x7FFF)); o += 2 }
                                else { list.append((b[o] & 0x80 != 0, Int(b[o] & 0x7F))); o += 1 }
                            }
                            associations[UInt32(id)] = list
                        }
                    }
                }
            default: break
            }
        }
    }

    /// The `auxC` URN of an item and whether its association is essential.
    func auxC(of item: UInt32) -> (urn: String, essential: Bool)? {
        for a in associations[item] ?? [] where a.index >= 1 && a.index <= properties.count {
            let p = properties[a.index - 1]
            guard p.type == "auxC", p.payload.count > 4 else { continue }
            let urn = String(decoding: p.payload[4...].prefix { $0 != 0 }, as: UTF8.self)
            return (urn, a.essential)
        }
        return nil
    }

    func property(_ type: String, of item: UInt32) -> [UInt8]? {
        for a in associations[item] ?? [] where a.index >= 1 && a.index <= properties.count && properties[a.index - 1].type == type {
            return properties[a.index - 1].payload
        }
        return nil
    }
}

/// A "developed" 1000 × 700 Display P3 image with a ~320 px thumbnail and four mattes: the
/// computed skin and gamut planes plus smooth portrait and sky planes standing in for supplied ones.
enum AppleFixture {
    static let kinds: [MatteKind] = [.portraitEffects, .skinColor, .sky, .gamut]
    /// Built once (debug builds are slow at 1000 × 700): with everything, thumbnail only, bare.
    static let full = image()
    static let thumbnailOnly = image(mattes: false)
    static let bare = image(mattes: false, thumbnail: false)

    static func image(width: Int = 1000, height: Int = 700, mattes: Bool = true, thumbnail: Bool = true) -> RenderedImage {
        var img = RenderedImage(width: width, height: height, bitsPerSample: 8,
                                pixels8: EncodeFixtures.gradient8(width: width, height: height),
                                colorSpaceName: "p3", iccProfile: (try? ICCProfileFactory.profile(for: .p3)) ?? EncodeFixtures.sRGBProfile,
                                exif: EncodeFixtures.exif())
        // A saturated P3 patch (outside sRGB) for the gamut matte.
        for y in (height / 8)..<(height / 4) { for x in (width / 8)..<(width / 4) {
            let i = (y * width + x) * 3
            img.pixels8[i] = 10; img.pixels8[i + 1] = 230; img.pixels8[i + 2] = 20
        } }
        if thumbnail { img.thumbnail = Thumbnailer.thumbnail(of: img, longSide: 320) }
        guard mattes else { return img }
        let (pw, ph) = MatteBuilder.planeSize(width: width, height: height)
        var portrait = [UInt8](repeating: 0, count: pw * ph), sky = portrait
        for y in 0..<ph { for x in 0..<pw {
            let dx = Double(x - pw / 2) / Double(pw / 4), dy = Double(y - ph / 2) / Double(ph / 3)
            let r = (dx * dx + dy * dy).squareRoot()
            portrait[y * pw + x] = UInt8(max(0, min(255, (1.2 - r) / 0.4 * 255)).rounded())
            sky[y * pw + x] = y < ph / 3 ? UInt8(255 - y * 255 / (ph / 3)) : 0
        } }
        img.mattes = [AuxiliaryPlane(kind: .portraitEffects, width: pw, height: ph, pixels: portrait),
                      MatteBuilder.skin(image: img, space: .p3),
                      AuxiliaryPlane(kind: .sky, width: pw, height: ph, pixels: sky),
                      MatteBuilder.gamut(image: img, space: .p3)]
        return img
    }

    static func meanAbsDiff(_ a: [UInt8], _ b: [UInt8]) -> Double {
        zip(a, b).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(max(a.count, 1))
    }

    static func maxAbsDiff(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    static func run(_ tool: String, _ args: [String], bytes: [UInt8], suffix: String) -> (status: Int32, out: String)? {
        guard FileManager.default.isExecutableFile(atPath: tool),
              let path = try? TestSupport.temporaryFile(bytes, suffix: suffix) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let r = try? TestSupport.runTool(tool, args + [path]) else { return nil }
        return (r.status, (r.stdout + r.stderr).replacingOccurrences(of: path, with: "OUT.\(suffix)"))
    }

    /// When `DARKROOM_KEEP_OUTPUTS` names a directory, outputs are saved there for inspection.
    static func keep(_ bytes: [UInt8], _ name: String) {
        guard let dir = ProcessInfo.processInfo.environment["DARKROOM_KEEP_OUTPUTS"] else { return }
        try? Data(bytes).write(to: URL(fileURLWithPath: dir).appendingPathComponent(name))
    }
}

@Suite("Apple-style HEIF and JPEG containers")
struct AppleContainerTests {
    static let dateTime = "2024:01:02 03:04:05"

    @Test func heifCarriesThumbnailAndFourMattes() throws {
        let img = AppleFixture.full
        let heic = try HEIFWriter.encode(img, options: .init(dateTime: Self.dateTime))
        AppleFixture.keep(heic, "apple-1000x700.heic")
        let s = try OutputInspector.inspect(heic)
        #expect(s.width == 1000 && s.height == 700)
        #expect(s.thumbnail == .init(width: 320, height: 224))
        #expect(s.auxiliaryPlanes.map(\.urn).sorted() == AppleFixture.kinds.map(\.urn).sorted())
        #expect(s.auxiliaryPlanes.allSatisfy { $0.width == 500 && $0.height == 350 })
        for m in img.mattes {
            let (w, h, px) = try OutputInspector.decodeAuxiliary(heic, urn: m.kind.urn)
            #expect(w == 500 && h == 350)
            let mean = AppleFixture.meanAbsDiff(m.pixels, px)
            #expect(mean < 1.5, "\(m.kind) mean |Δ| \(mean)")
            #expect(EncodeFixtures.psnr(m.pixels, px) > 35, "\(m.kind)")
        }
        #expect(s.exif["Make"] == "Canon" && s.exif["LensModel"] == "EF24-105mm f/4L IS USM")
        #expect(s.iccProfile == img.iccProfile && s.iccDescription == "Display P3")
        #expect(!s.hasNCLX)   // ICC only, as iPhones write
    }

    /// The layout iPhones write (checked on ../shared/samples/heif/libvips_apple-heic-gainmap.heic):
    /// each matte is a hidden `hvc1` item, `auxl` → primary, an essential `auxC` with the URN,
    /// its own `ispe` (half size) and `hvcC`; the thumbnail is `thmb` → primary.
    @Test func heifAuxiliaryLayoutMatchesIPhone() throws {
        let heic = try HEIFWriter.encode(AppleFixture.full, options: .init(dateTime: Self.dateTime))
        let ours = try #require(HEIFMetaLayout(heic))
        func check(_ layout: HEIFMetaLayout, urns: [String], master: UInt32, label: String) {
            for urn in urns {
                let item = layout.associations.keys.first { layout.auxC(of: $0)?.urn == urn }
                guard let item else { Issue.record("\(label): no item with \(urn)"); continue }
                #expect(layout.auxC(of: item)?.essential == true, "\(label) \(urn)")
                #expect(layout.hidden[item] == true, "\(label) \(urn) hidden")
                #expect(layout.itemTypes[item] == "hvc1", "\(label) \(urn)")
                #expect(layout.references.contains { $0.type == "auxl" && $0.from == item && $0.to.contains(master) }, "\(label) \(urn) auxl")
                #expect(layout.property("ispe", of: item) != nil && layout.property("hvcC", of: item) != nil, "\(label) \(urn)")
            }
            #expect(layout.references.contains { $0.type == "thmb" && $0.to == [master] }, "\(label) thmb")
        }
        check(ours, urns: AppleFixture.kinds.map(\.urn), master: ours.primary, label: "ours")
        // Our primary is not hidden, and the matte ispe is half the primary's.
        #expect(ours.hidden[ours.primary] == false)
        for kind in AppleFixture.kinds {
            let item = try #require(ours.associations.keys.first { ours.auxC(of: $0)?.urn == kind.urn })
            let ispe = try #require(ours.property("ispe", of: item))
            #expect(Array(ispe[4..<12]) == [0, 0, 0x01, 0xF4, 0, 0, 0x01, 0x5E])   // 500 × 350
        }
        let iphoneURL = EncodeFixtures.samplesDir.appendingPathComponent("heif/libvips_apple-heic-gainmap.heic")
        guard let iphone = try? [UInt8](Data(contentsOf: iphoneURL)) else { return }
        let theirs = try #require(HEIFMetaLayout(iphone))
        check(theirs, urns: [MatteKind.portraitEffects.urn, MatteKind.skin.urn, MatteKind.sky.urn], master: theirs.primary, label: "iPhone")
    }

    @Test func jpegCarriesSmallExifThumbnailAndFourMPFMattes() throws {
        let img = AppleFixture.full
        let jpeg = try JPEGWriter.encode(img, options: .init(quality: 90, dateTime: Self.dateTime))
        AppleFixture.keep(jpeg, "apple-1000x700.jpg")
        let s = try OutputInspector.inspect(jpeg)
        #expect(s.thumbnail == .init(width: 160, height: 112))
        #expect(s.auxiliaryPlanes.map(\.urn) == AppleFixture.kinds.map(\.urn))
        #expect(s.auxiliaryPlanes.allSatisfy { $0.width == 500 && $0.height == 350 })
        for m in img.mattes {
            let (w, h, px) = try OutputInspector.decodeAuxiliary(jpeg, urn: m.kind.urn)
            #expect(w == 500 && h == 350)
            #expect(AppleFixture.meanAbsDiff(m.pixels, px) < 1.0, "\(m.kind)")
        }
        // The EXIF thumbnail decodes (libjpeg) and is well under 64 KB.
        let walk = try JPEGMarkerWalker(jpeg[...])
        let exif = try #require(walk.app(0xE1, signature: JPEGSegment.exifSignature).first)
        var summary = OutputSummary(format: .jpeg, width: 0, height: 0, bitsPerSample: 8)
        let range = try #require(try OutputInspector.apply(exif: Array(exif.body), to: &summary).thumbnail)
        #expect(range.count < 64 * 1024)
        let thumb = try TurboJPEG(.decompress).decompress(Array(Array(exif.body).dropFirst(range.lowerBound).prefix(range.count)))
        #expect(thumb.width == 160 && thumb.height == 112)
        // Portrait and square thumbnails fit 120 × 160 and 120 × 120.
        #expect(JPEGWriter.exifThumbnail(Thumbnail(width: 213, height: 320, pixels: [UInt8](repeating: 9, count: 213 * 320 * 3))).height == 160)
        let square = JPEGWriter.exifThumbnail(Thumbnail(width: 320, height: 320, pixels: [UInt8](repeating: 9, count: 320 * 320 * 3)))
        #expect(square.width == 120 && square.height == 120)
    }

    /// MPF layout checked the same way on our file and on a camera's (Panasonic DMC-LX7): the MP
    /// Index IFD holds MPFVersion "0100", NumberOfImages and 16-byte MP Entries; entry 1 is the
    /// primary at offset 0 with the file's first image size; every other entry's offset, counted
    /// from the MP header, lands on an SOI, and the images tile the file without gaps.
    @Test(arguments: ["ours", "panasonic"])
    func mpfLayoutMatchesCameraFile(which: String) throws {
        let bytes: [UInt8]
        if which == "ours" {
            bytes = try JPEGWriter.encode(AppleFixture.image(width: 200, height: 140), options: .init(dateTime: Self.dateTime))
        } else {
            let url = EncodeFixtures.samplesDir.appendingPathComponent("heif/mdextractor_Panasonic_DMC-LX7_MPF.jpg")
            guard let b = try? [UInt8](Data(contentsOf: url)) else { return }
            bytes = b
        }
        let walk = try JPEGMarkerWalker(bytes[...])
        let mpf = try #require(walk.app(0xE2, signature: JPEGSegment.mpfSignature).first)
        let t = Array(mpf.body)
        let little = t[0] == 0x49
        func u16(_ o: Int) -> Int { little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1]) }
        func u32(_ o: Int) -> Int { little ? u16(o) | u16(o + 2) << 16 : u16(o) << 16 | u16(o + 2) }
        let ifd = u32(4)
        var tags: [Int: (count: Int, value: Int)] = [:]
        for i in 0..<u16(ifd) { tags[u16(ifd + 2 + 12 * i)] = (u32(ifd + 2 + 12 * i + 4), u32(ifd + 2 + 12 * i + 8)) }
        #expect(Set(tags.keys).isSuperset(of: [0xB000, 0xB001, 0xB002]))
        #expect(Array(t[(ifd + 2 + 8)..<(ifd + 2 + 12)]) == Array("0100".utf8))   // MPFVersion, inline
        let n = try #require(tags[0xB001]).value
        let entries = try #require(tags[0xB002])
        #expect(entries.count == 16 * n)
        var end = 0
        for k in 0..<n {
            let e = entries.value + 16 * k
            let attribute = u32(e), size = u32(e + 4), offset = u32(e + 8)
            let start = k == 0 ? 0 : mpf.offset + offset
            if k == 0 {
                #expect(offset == 0 && attribute & 0x00FF_FFFF == 0x03_0000)   // Baseline MP Primary Image
            }
            #expect(start + size <= bytes.count)
            #expect(bytes[start] == 0xFF && bytes[start + 1] == 0xD8, "\(which) entry \(k + 1)")
            #expect(start >= end, "\(which) entry \(k + 1) overlaps")
            end = start + size
        }
        if which == "ours" { #expect(end == bytes.count && n == 1 + AppleFixture.kinds.count) }
    }

    @Test func heifInfoListsThumbnailAndAuxiliaryImages() throws {
        let heic = try HEIFWriter.encode(AppleFixture.full, options: .init(dateTime: Self.dateTime))
        guard let plain = AppleFixture.run("/usr/bin/heif-info", [], bytes: heic, suffix: "heic"),
              let dump = AppleFixture.run("/usr/bin/heif-info", ["-d"], bytes: heic, suffix: "heic") else { return }
        if ProcessInfo.processInfo.environment["DARKROOM_PRINT_TOOLS"] != nil { print(plain.out); print(dump.out) }
        #expect(plain.status == 0 && dump.status == 0)
        #expect(plain.out.contains("image: 1000x700"))
        #expect(plain.out.contains("thumbnail: 320x224"))
        for kind in AppleFixture.kinds { #expect(dump.out.contains("aux type: \(kind.urn)"), "\(kind)") }
        #expect(dump.out.components(separatedBy: "reference with type 'auxl'").count == 1 + AppleFixture.kinds.count)
        #expect(dump.out.contains("reference with type 'thmb'"))
    }

    @Test func exiftoolSeesThumbnailMPFImagesAndCarriedTags() throws {
        let img = AppleFixture.full
        let jpeg = try JPEGWriter.encode(img, options: .init(dateTime: Self.dateTime))
        guard let j = EncodeFixtures.exiftool(jpeg, args: ["-j", "-n", "-a", "-G1"]) else { return }
        #expect(j["IFD1:ThumbnailImage"] != nil)
        #expect(j["MPF0:NumberOfImages"] as? Int == 5)
        for k in 2...5 { #expect(j["MPImage\(k):MPImageLength"] as? Int ?? 0 > 0, "MPImage\(k)") }
        let heic = try HEIFWriter.encode(img, options: .init(dateTime: Self.dateTime))
        let h = EncodeFixtures.exiftool(heic, args: ["-j", "-n"]) ?? [:]
        for tags in [EncodeFixtures.exiftool(jpeg) ?? [:], h] {
            #expect(tags["Make"] as? String == "Canon")
            #expect(tags["Model"] as? String == "Canon EOS 6D")
            #expect(tags["LensModel"] as? String == "EF24-105mm f/4L IS USM")
            #expect(tags["DateTimeOriginal"] as? String == "2021:06:05 14:03:22")
            #expect(tags["OffsetTimeOriginal"] as? String == "+02:00")
            #expect("\(tags["SubSecTimeOriginal"] ?? "")" == "42")
            #expect(tags["ExposureTime"] as? Double == 0.004)
            #expect(tags["FNumber"] as? Double == 8)
            #expect(tags["ISO"] as? Int == 400)
            #expect(tags["FocalLength"] as? Double == 50)
            #expect(tags["FocalLengthIn35mmFormat"] as? Int == 50)
            #expect(tags["ExposureCompensation"] as? Double == -0.7)
            #expect(tags["Flash"] as? Int == 16)
            #expect(abs((tags["GPSLatitude"] as? Double ?? 0) - 48.8584) < 1e-5)
            #expect(tags["Artist"] as? String == "Ada")
            #expect(tags["Copyright"] as? String == "(c) Ada")
            #expect(tags["ImageUniqueID"] as? String == "0123456789abcdef0123456789abcdef")
            #expect(tags["Software"] as? String == "Darkroom \(DarkroomVersion.string)")
            #expect(tags["Orientation"] as? Int == 1)
            #expect(tags["Rating"] as? Int == 4)   // the XMP packet
        }
    }

    /// Bytes the thumbnail and the four mattes add to a 1000 × 700 image (printed for the report).
    @Test func overheadOfThumbnailAndMattes() throws {
        let bare = AppleFixture.bare, thumb = AppleFixture.thumbnailOnly, full = AppleFixture.full
        let o = JPEGOptions(quality: 90, dateTime: Self.dateTime)
        let h = HEIFOptions(dateTime: Self.dateTime)
        let j0 = try JPEGWriter.encode(bare, options: o).count, j1 = try JPEGWriter.encode(thumb, options: o).count
        let j2 = try JPEGWriter.encode(full, options: o).count
        let h0 = try HEIFWriter.encode(bare, options: h).count, h1 = try HEIFWriter.encode(thumb, options: h).count
        let h2 = try HEIFWriter.encode(full, options: h).count
        print("overhead 1000x700 JPEG q90: bare \(j0) B, +thumbnail \(j1 - j0) B, +4 mattes \(j2 - j1) B, total \(j2) B")
        print("overhead 1000x700 HEIF q65: bare \(h0) B, +thumbnail \(h1 - h0) B, +4 mattes \(h2 - h1) B, total \(h2) B")
        #expect(j1 > j0 && j2 > j1 && h1 > h0 && h2 > h1)
        #expect(j1 - j0 < 64 * 1024)
    }

    /// Develop → computed planes → HEIF and JPEG → read back: the synthetic ColorChecker chart
    /// rendered to Display P3, with the skin, gamut and clipping planes and the thumbnail.
    @Test func developedChartWithComputedPlanesRoundTrips() throws {
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: 240, height: 160)
        let raw = chart.makeRawImage()
        var recipe = DevelopRecipe()
        recipe.colorSpace = .p3
        recipe.applyDefaultCrop = false
        // The darkroom look: its gentle curve keeps every ColorChecker colour inside sRGB and
        // below clipping (the reference look's contrast and RGB tone push the cyan patch out of
        // sRGB and the white patch to 1, which the planes then rightly mark).
        recipe.tone = .standard
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        var img = TileRenderer.render(raw, plan: plan)
        img.iccProfile = try ICCProfileFactory.profile(for: .p3)
        img.mattes = MatteBuilder.computed([.skinColor, .gamut, .clipping], image: img, raw: raw, plan: plan)
        #expect(img.mattes.map(\.kind) == [.skinColor, .gamut, .clipping])
        let skin = img.mattes[0]
        func centre(_ patch: Int) -> Int {
            let r = chart.patchRects[patch]
            return ((r.y + r.height / 2) / 2) * skin.width + (r.x + r.width / 2) / 2
        }
        #expect(skin.pixels[centre(0)] >= 200 && skin.pixels[centre(1)] >= 200, "dark/light skin")
        #expect(skin.pixels[centre(12)] == 0 && skin.pixels[centre(13)] == 0, "blue/green")
        // ColorChecker colours are inside sRGB and nothing is saturated (a demosaic may overshoot
        // by a little at a few razor-sharp patch edges: at most 0.1 % of the plane, and faintly).
        let outOfGamut = img.mattes[1].pixels.filter { $0 >= 8 }
        #expect(outOfGamut.count * 1000 <= img.mattes[1].pixels.count && (outOfGamut.max() ?? 0) < 32,
                "gamut: \(outOfGamut.count) of \(img.mattes[1].pixels.count) ≥ 8, max \(outOfGamut.max() ?? 0)")
        #expect(img.mattes[2].pixels.allSatisfy { $0 == 0 })

        for bytes in [try HEIFWriter.encode(img, options: .init(quality: 80, dateTime: Self.dateTime)),
                      try JPEGWriter.encode(img, options: .init(quality: 92, dateTime: Self.dateTime))] {
            let s = try OutputInspector.inspect(bytes)
            #expect(s.auxiliaryPlanes.map(\.urn).sorted() == [MatteKind.skinColor.urn, MatteKind.gamut.urn, MatteKind.clipping.urn].sorted())
            #expect(s.auxiliaryPlanes.allSatisfy { $0.width == 120 && $0.height == 80 })
            #expect(s.iccDescription == "Display P3")
            for m in img.mattes {
                let back = try OutputInspector.decodeAuxiliary(bytes, urn: m.kind.urn)
                #expect(back.width == 120 && back.height == 80)
                #expect(AppleFixture.maxAbsDiff(m.pixels, back.pixels) <= 48, "\(s.format) \(m.kind)")
                #expect(AppleFixture.meanAbsDiff(m.pixels, back.pixels) < 2, "\(s.format) \(m.kind)")
            }
        }
    }
}
