import Testing
@testable import DarkroomFormats
@testable import DarkroomIO

/// TIFF structure parsing: byte order, typed accessors and every structural rejection.
@Suite struct TIFFStructureTests {
    @Test(arguments: [false, true])
    func byteReaderReadsBothOrdersAndChecksBounds(_ big: Bool) throws {
        let r = ByteReader(bytes: [0x01, 0x02, 0x03, 0x04, 0x05], bigEndian: big)
        #expect(try r.u16(0) == (big ? 0x0102 : 0x0201))
        #expect(try r.u32(1) == (big ? 0x0203_0405 : 0x0504_0302))
        #expect(throws: TIFFError.truncated(at: 2, needed: 4)) { try r.u32(2) }
        #expect(throws: TIFFError.truncated(at: -1, needed: 1)) { try r.u8(-1) }
        #expect(throws: TIFFError.truncated(at: Int.max, needed: 2)) { try r.u16(Int.max) }
        #expect(try r.copy(1, 3) == [2, 3, 4])
    }

    @Test(arguments: [false, true])
    func typedAccessors(_ big: Bool) throws {
        var b = TIFFTestBuilder(bigEndian: big)
        let ifd = b.appendIFD([
            b.long(TIFFTag.imageWidth, [4000]), b.short(TIFFTag.bitsPerSample, [12, 12, 12]),
            b.ascii(TIFFTag.make, "Darkroom  "), b.srational(TIFFTag.baselineExposure, [(-35, 100)]),
            b.rational(TIFFTag.asShotNeutral, [(1, 2), (1, 1), (3, 4)]), b.float(TIFFTag.profileToneCurve, [0, 0, 1, 1]),
            b.byte(TIFFTag.dngVersion, [1, 6, 0, 0]), b.rational(TIFFTag.blackLevel, [(1, 0)]),
        ])
        b.setFirstIFD(ifd)
        let f = try TIFFFile(bytes: b.bytes)
        let i = try #require(f.ifd0)
        #expect(f.bigEndian == big)
        #expect(try i.uint(TIFFTag.imageWidth) == 4000)
        #expect(try i.uints(TIFFTag.bitsPerSample) == [12, 12, 12])
        #expect(try i.string(TIFFTag.make) == "Darkroom")
        #expect(try i.double(TIFFTag.baselineExposure) == -0.35)
        #expect(try i.doubles(TIFFTag.asShotNeutral) == [0.5, 1, 0.75])
        #expect(try i.rationals(TIFFTag.asShotNeutral)?.first == TIFFRational(1, 2))
        #expect(try i.doubles(TIFFTag.profileToneCurve) == [0, 0, 1, 1])
        #expect(try i.doubles(TIFFTag.dngVersion) == [1, 6, 0, 0])
        #expect(try i.uint(TIFFTag.software) == nil)
        #expect(throws: TIFFError.self) { try i.uint(TIFFTag.make) }                // ASCII is not an integer
        #expect(throws: TIFFError.self) { try i.doubles(TIFFTag.blackLevel) }       // zero denominator
    }

    @Test func rejectsBadMagicAndShortFiles() {
        #expect(throws: TIFFError.badMagic(found: [0x50, 0x4B, 3, 4])) { try TIFFFile(bytes: [0x50, 0x4B, 3, 4, 0, 0, 0, 0]) }
        #expect(throws: TIFFError.truncated(at: 0, needed: 8)) { try TIFFFile(bytes: []) }
        #expect(throws: TIFFError.truncated(at: 0, needed: 8)) { try TIFFFile(bytes: [0x49, 0x49, 42]) }
        #expect(throws: TIFFError.badMagic(found: [0x49, 0x49, 43, 0])) { try TIFFFile(bytes: [0x49, 0x49, 43, 0, 8, 0, 0, 0]) }
        #expect(throws: TIFFError.self) { try TIFFFile(bytes: [0x49, 0x49, 42, 0, 0, 0, 0, 0]) }   // no IFD0
    }

    @Test func rejectsLoopingChain() {
        var b = TIFFTestBuilder()
        let ifd = b.appendIFD([b.long(TIFFTag.imageWidth, [1])], next: 8)   // next points to itself
        b.setFirstIFD(ifd)
        #expect(ifd == 8)
        #expect(throws: TIFFError.loopingIFD(offset: 8)) { try TIFFFile(bytes: b.bytes) }
    }

    @Test func rejectsSubIFDLoopAndOverlap() {
        var b = TIFFTestBuilder()
        let ifd = b.appendIFD([b.long(TIFFTag.subIFDs, [8])])
        b.setFirstIFD(ifd)
        #expect(throws: TIFFError.loopingIFD(offset: 8)) { try TIFFFile(bytes: b.bytes) }

        var c = TIFFTestBuilder()
        let first = c.appendIFD([c.long(TIFFTag.imageWidth, [1]), c.long(TIFFTag.subIFDs, [10])])
        c.setFirstIFD(first)
        #expect(throws: TIFFError.overlappingIFD(offset: 10)) { try TIFFFile(bytes: c.bytes) }
    }

    @Test func rejectsHugeEntryCountAndOffsetsPastEnd() {
        var b = TIFFTestBuilder()
        let o = b.append([0xFF, 0xFF, 0, 0, 0, 0])
        b.setFirstIFD(o)
        #expect(throws: TIFFError.tooManyEntries(offset: o, count: 65535)) { try TIFFFile(bytes: b.bytes) }

        var c = TIFFTestBuilder()
        c.setFirstIFD(1_000_000)
        #expect(throws: TIFFError.truncated(at: 1_000_000, needed: 2)) { try TIFFFile(bytes: c.bytes) }

        var d = TIFFTestBuilder()
        let ifd = d.appendIFD([d.long(TIFFTag.imageWidth, [1])], next: 0xFFFF_FFF0)
        d.setFirstIFD(ifd)
        #expect(throws: TIFFError.self) { try TIFFFile(bytes: d.bytes) }
    }

    @Test func rejectsDeepNesting() {
        var b = TIFFTestBuilder()
        var child = b.appendIFD([b.long(TIFFTag.imageWidth, [1])])
        for _ in 0..<10 { child = b.appendIFD([b.long(TIFFTag.subIFDs, [UInt32(child)])]) }
        b.setFirstIFD(child)
        #expect(throws: TIFFError.self) { try TIFFFile(bytes: b.bytes) }
        do { _ = try TIFFFile(bytes: b.bytes) } catch {
            guard case .tooDeep = error else { Issue.record("expected tooDeep, got \(error)"); return }
        }
    }

    /// In an image IFD a value past the end means truncation; in the EXIF IFD only that tag fails.
    @Test func valuePastEndIsStrictInImageIFDsLenientInExif() throws {
        var b = TIFFTestBuilder()
        let ifd = b.appendIFD([b.long(TIFFTag.imageWidth, [1]), b.raw(TIFFTag.model, type: 2, count: 100, value: 1_000_000)])
        b.setFirstIFD(ifd)
        #expect(throws: TIFFError.truncated(at: 1_000_000, needed: 100)) { try TIFFFile(bytes: b.bytes) }

        var c = TIFFTestBuilder()
        let exif = c.appendIFD([c.raw(TIFFTag.lensModel, type: 2, count: 100, value: 1_000_000), c.ascii(TIFFTag.lensMake, "L")])
        let ifd0 = c.appendIFD([c.long(TIFFTag.imageWidth, [1]), c.long(TIFFTag.exifIFD, [UInt32(exif)]),
                                c.raw(TIFFTag.make, type: 99, count: 1, value: 0)])   // unknown type: ignored
        c.setFirstIFD(ifd0)
        let f = try TIFFFile(bytes: c.bytes)
        let e = try #require(f.ifd0?.exifIFD)
        #expect(try e.string(TIFFTag.lensMake) == "L")
        #expect(throws: TIFFError.self) { try e.string(TIFFTag.lensModel) }
        #expect(throws: TIFFError.self) { try f.ifd0?.string(TIFFTag.make) }
    }

    @Test func brokenExifIFDOnlyWarns() throws {
        var b = TIFFTestBuilder()
        let ifd = b.appendIFD([b.long(TIFFTag.imageWidth, [1]), b.long(TIFFTag.exifIFD, [99_999])])
        b.setFirstIFD(ifd)
        let f = try TIFFFile(bytes: b.bytes)
        #expect(f.ifd0?.exifIFD == nil)
        #expect(f.warnings.count == 1)
    }

    @Test func errorDescriptionsAreOneLineAndNameTheFile() {
        let errors: [TIFFError] = [.badMagic(found: [1, 2]), .truncated(at: 5, needed: 4), .loopingIFD(offset: 8),
                                   .badEntry(tag: 50721, reason: "x"), .tooManyEntries(offset: 8, count: 9999), .noRawIFD]
        for e in errors {
            let d = e.inFile("/a/b.dng").description
            #expect(d.hasPrefix("/a/b.dng: "))
            #expect(!d.contains("\n"))
        }
        #expect(TIFFError.badEntry(tag: 50721, reason: "x").description == "bad tag ColorMatrix1 (50721): x")
    }
}
