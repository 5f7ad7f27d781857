// The bodies of the libFuzzer targets (one per parser), shared by the fuzz executables
// (`make fuzz`) and FuzzRegressionTests, which replays every saved crasher in Tests/Fuzz/Regressions.
import DarkroomCore
import DarkroomFormats
import DarkroomIO
import Glibc

/// libFuzzer target: TIFF structure, every DNG tag, the raw data layout and the opcode lists of
/// arbitrary bytes. Replayed by FuzzRegressionTests.
public func fuzzDNGMetadata(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let file = try? TIFFFile(bytes: bytes) else { return 0 }
    if let raw = try? DNGMetadataReader.findRawIFD(file) {
        if let md = try? DNGMetadataReader.read(file, raw: raw) {
            _ = ParsedOpcodeLists(md)
            if let l1 = md.opcodeList1, let list = try? OpcodeList.parse(l1) {
                _ = try? list.validate(imageWidth: max(1, min(md.sensorWidth, 4096)), imageHeight: max(1, min(md.sensorHeight, 4096)),
                                       planes: md.samplesPerPixel)
            }
        }
        _ = try? DNGMetadataReader.rawDataLayout(raw, file: file)
    }
    _ = try? DNGMetadataReader.readDCP(bytes)
    return 0
}

/// libFuzzer target: OpcodeList parsing, validation against a small image, and applying the list
/// to it (raw UInt16 stage 1, and Float stages 2/3), so hostile parameters reach the kernels.
public func fuzzOpcodeList(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let list = try? OpcodeList.parse(bytes) else { return 0 }
    _ = list.encode()
    _ = list.summary
    let cfa = CFAPattern(name: "rggb")
    for planes in [1, 3] {
        let w = 37, h = 29
        guard (try? list.validate(imageWidth: w, imageHeight: h, planes: planes)) != nil else { continue }
        var raw = [UInt16]((0..<(w * h * planes)).map { UInt16(truncatingIfNeeded: $0 &* 2654435761 >> 16) })
        try? list.applyRaw(to: &raw, width: w, height: h, planes: planes, cfa: planes == 1 ? cfa : nil, whiteLevel: 65535)
        var f = raw.map { Float($0) / 65535 }
        var ww = w, hh = h
        try? list.applyWhole(to: &f, width: &ww, height: &hh, planes: planes, cfa: planes == 1 ? cfa : nil)
    }
    return 0
}

/// libFuzzer target: the lossless-JPEG (ITU-T T.81 process 14) DNG decoder on one strip whose
/// bytes are the input after a 3-byte header choosing the strip's width, height and components.
public func fuzzLosslessJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 3 else { return 0 }
    let width = 1 + Int(data[0] % 64), height = 1 + Int(data[1] % 64), spp = data[2] % 2 == 0 ? 1 : 3
    let path = "/tmp/fuzz-lj92-\(getpid()).bin"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data + 3, size - 3)
    close(fd)
    defer { unlink(path) }
    let layout = DNGRawDataLayout(bigEndian: false, width: width, height: height, samplesPerPixel: spp, bitsPerSample: [16],
                                  compression: 7, planarConfiguration: 1, sampleFormat: [1], fillOrder: 1,
                                  blocks: .strips(rowsPerStrip: height), offsets: [0], byteCounts: [size - 3],
                                  hasLinearizationTable: false)
    _ = try? LosslessJPEGDecoder.decode(layout, region: PixelRect(x: 0, y: 0, width: width, height: height), threads: 1, path: path)
    return 0
}

/// libFuzzer target: the readers of our own containers that also see other programs' files:
/// the JPEG marker walker (APPn, SOF, MPF) and the EXIF/TIFF reader.
public func fuzzContainers(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let walk = try? JPEGMarkerWalker(bytes[...]) {
        _ = walk.frame
        for app in walk.app(0xE1, signature: JPEGSegment.exifSignature) { _ = try? ExifReader(tiff: Array(app.body)) }
    }
    _ = try? ExifReader(tiff: bytes)
    return 0
}

/// libFuzzer target: the colour files users hand to options, up to the colour maths they feed
/// (issue 41: values finite on input that overflow there trapped `compare`). A DCP ("IIRC"/"MMCR")
/// is read as `--profile` reads it and its numbers checked (`ProfileLibrary.valueProblem`); any
/// other input is a CGATS chart reference whose every patch goes through XYZ under three
/// illuminants, Lab, CIEDE2000 and the sRGB swatch.
public func fuzzColourFiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if size >= 4, bytes[0] == bytes[1], bytes[2...3] == [0x52, 0x43] || bytes[2...3] == [0x43, 0x52] {
        if let profile = try? DNGMetadataReader.readDCP(bytes) { _ = ProfileLibrary.valueProblem(profile) }
        return 0
    }
    guard size <= CGATSFile.maximumBytes, let text = String(validating: bytes, as: UTF8.self),
          let file = try? CGATSFile(text: text), let reference = try? ChartReference.fromCGATS(file, path: "fuzz") else { return 0 }
    for illuminant in [Spectral.d50, Spectral.d65, Spectral.illuminantA] {
        for xyz in reference.xyzD50(illuminant: illuminant) {
            let lab = ColorMath.xyzToLab(xyz)
            _ = ColorDifference(reference: lab, sample: SIMD3(50, 10, -10)).deltaE2000
            _ = CompareRunner.srgbHex(xyz)
        }
    }
    return 0
}

/// libFuzzer target: the whole decoder chain (`RawDecoder.decode`: container sniffing, DNG tags,
/// decode budget, opcode structure, native uncompressed / lossless-JPEG decoders, OpcodeList1,
// LibRaw for everything else) on the input written to a file.

public func fuzzDecode(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = "/tmp/fuzz-decode-\(getpid()).dng"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    defer { unlink(path) }
    var options = DecodeOptions(threads: 1)
    options.memoryLimit = 256 << 20
    _ = try? RawDecoder.metadata(path: path, options: options)
    _ = try? RawDecoder.decode(path: path, options: options)
    return 0
}
