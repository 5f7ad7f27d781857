import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom info FILE...`
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print the decoded metadata of RAW/DNG files (or what is inside a JPEG/HEIF/TIFF we wrote).")

    @Argument(help: "Files to describe.")
    var files: [String]

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Also decode the pixels and print per-channel statistics of the stored values.")
    var stats = false

    @OptionGroup var bayerOptions: BayerOptions

    func decodeOptions() throws -> DecodeOptions {
        try EffectiveRecipe.resolve(try EffectiveRecipe.layer(file: nil, [bayerOptions])).decode
    }

    func run() throws {
        let decode = try decodeOptions()
        var failed = false
        var jsonItems: [String] = []
        for path in files {
            if decode.bayerDump == nil, let kind = OutputKind.sniff(path: path) {
                do {
                    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                    let summary = try OutputInspector.inspect(bytes)
                    if json { jsonItems.append(try Self.encode(summary)) } else {
                        Console.out("\(path): \(kind) output"); Console.out(Self.indent(try Self.textSummary(summary)))
                    }
                } catch {
                    Console.err("darkroom: error: \(path): cannot inspect \(kind) (\(error))"); failed = true
                }
                continue
            }
            do throws(DecodeError) {
                let md = try RawDecoder.metadata(path: path, options: decode)
                if json {
                    jsonItems.append((try? Self.encode(MetadataReport(file: path, metadata: md))) ?? "{}")
                } else {
                    Console.out(MetadataFormatter.text(md, path: path))
                }
                if stats { try Self.printStats(path: path, options: decode) }
            } catch {
                // A plain TIFF (e.g. our 16-bit output) is not a RAW: describe it as an output.
                if case .notRaw = error, decode.bayerDump == nil,
                   let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))),
                   bytes.count > 8, (bytes[0] == 0x49 && bytes[1] == 0x49) || (bytes[0] == 0x4D && bytes[1] == 0x4D),
                   let summary = try? OutputInspector.inspect(bytes) {
                    if json { jsonItems.append((try? Self.encode(summary)) ?? "{}") } else {
                        Console.out("\(path): TIFF output"); Console.out(Self.indent((try? Self.textSummary(summary)) ?? ""))
                    }
                    continue
                }
                Console.err("darkroom: error: \(error.description)"); failed = true
            }
        }
        if json {
            Console.out(files.count == 1 && jsonItems.count == 1 ? jsonItems[0] : "[\n" + jsonItems.joined(separator: ",\n") + "\n]")
        }
        if failed { throw ExitCode(1) }
    }

    static func printStats(path: String, options: DecodeOptions) throws(DecodeError) {
        let raw = try RawDecoder.decode(path: path, options: options)
        for (name, st) in zip(["R", "G", "B"], raw.sampleStatistics()) {
            guard let st else { continue }
            Console.out("  stats \(name)          min \(st.minimum)  max \(st.maximum)  mean \(String(format: "%.1f", st.mean))")
        }
    }

    static func encode<T: Encodable>(_ v: T) throws -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        enc.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try enc.encode(v), as: UTF8.self)
    }

    /// The summary as indented text, without the raw ICC bytes (the JSON form has them).
    static func textSummary<T: Encodable>(_ v: T) throws -> String {
        let data = try JSONEncoder().encode(v)
        guard var obj = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return try encode(v) }
        obj.removeValue(forKey: "iccProfile")
        let pretty = try JSONSerialization.data(withJSONObject: obj, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: pretty, as: UTF8.self)
    }

    static func indent(_ s: String) -> String { s.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") }
}

/// JSON shape of `info --json` for a RAW file.
struct MetadataReport: Encodable {
    var file: String
    var metadata: RawMetadata
    var opcodeList1: [String]?
    var opcodeList2: [String]?
    var opcodeList3: [String]?
    init(file: String, metadata: RawMetadata) {
        self.file = file
        self.metadata = metadata
        opcodeList1 = MetadataFormatter.opcodeSummary(metadata.opcodeList1)
        opcodeList2 = MetadataFormatter.opcodeSummary(metadata.opcodeList2)
        opcodeList3 = MetadataFormatter.opcodeSummary(metadata.opcodeList3)
    }
}

enum OutputKind: CustomStringConvertible {
    case jpeg, heif, tiffOutput
    var description: String { self == .jpeg ? "JPEG" : self == .heif ? "HEIF" : "TIFF" }
    /// JPEG and HEIF by magic; TIFF only when it is not a DNG/RAW (no DNGVersion, not a LibRaw file).
    static func sniff(path: String) -> OutputKind? {
        guard let fh = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? fh.close() }
        let head = [UInt8](fh.readData(ofLength: 12))
        guard head.count >= 12 else { return nil }
        if head[0] == 0xFF && head[1] == 0xD8 { return .jpeg }
        if head[4] == 0x66 && head[5] == 0x74 && head[6] == 0x79 && head[7] == 0x70 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "mif1", "msf1", "heim", "heis", "avif"].contains(brand) { return .heif }
        }
        return nil
    }
}

enum MetadataFormatter {
    static func opcodeSummary(_ bytes: [UInt8]?) -> [String]? {
        guard let bytes, !bytes.isEmpty else { return nil }
        do {
            let list = try OpcodeList.parse(bytes)
            return list.summary + list.warnings.map { "warning: \($0)" }
        } catch { return ["unparseable: \(error.description)"] }
    }

    static func text(_ md: RawMetadata, path: String) -> String {
        func f(_ v: Double?, _ d: Int = 4) -> String { v.map { String(format: "%.\(d)f", $0) } ?? "—" }
        func m(_ a: Matrix3?) -> String {
            guard let a else { return "—" }
            return (0..<3).map { r in (0..<3).map { c in String(format: "%8.4f", a[r, c]) }.joined(separator: " ") }.joined(separator: " | ")
        }
        func list(_ v: [Double]?) -> String { v.map { $0.map { f($0) }.joined(separator: " ") } ?? "—" }
        var l: [String] = []
        l.append("\(path)")
        l.append("  format            \(md.fileFormat)\(md.dngVersion.map { " " + $0.map(String.init).joined(separator: ".") } ?? "")")
        let camera = [md.exif.make, md.exif.model].compactMap { $0 }.joined(separator: " ")
        l.append("  camera            \(camera.isEmpty ? "—" : camera)\(md.uniqueCameraModel.map { " (UniqueCameraModel \($0))" } ?? "")")
        l.append("  sensor            \(md.sensorWidth)x\(md.sensorHeight), active area \(md.activeArea?.description ?? "whole")")
        l.append("  default crop      \(md.defaultCrop?.description ?? "none")")
        l.append("  layout            \(md.samplesPerPixel == 1 ? "CFA \(md.cfa?.description ?? "?")" : "LinearRaw, \(md.samplesPerPixel) samples"), \(md.bitsPerSample)-bit, compression \(md.compression.map(String.init) ?? "—")")
        l.append("  black level       \(md.blackLevel.map { f($0, 1) }.joined(separator: " ")) (repeat \(md.blackLevelRepeatRows)x\(md.blackLevelRepeatColumns))\(md.blackLevelDeltaH != nil ? " + DeltaH" : "")\(md.blackLevelDeltaV != nil ? " + DeltaV" : "")")
        l.append("  white level       \(md.whiteLevel.map { f($0, 0) }.joined(separator: " "))")
        l.append("  orientation       \(md.orientation) (\(Orientation(md.orientation)))")
        l.append("  AsShotNeutral     \(list(md.asShotNeutral))")
        l.append("  AsShotWhiteXY     \(md.asShotWhiteXY?.description ?? "—")")
        l.append("  AnalogBalance     \(list(md.analogBalance))")
        l.append("  BaselineExposure  \(f(md.baselineExposure, 2))\(md.profile?.baselineExposureOffset.map { " (+ offset \(f($0, 2)))" } ?? "")")
        if let p = md.profile {
            l.append("  profile           \(p.name ?? "(unnamed)")")
            l.append("  CalibrationIlluminant1/2/3  \(p.calibrationIlluminant1.map(String.init) ?? "—") / \(p.calibrationIlluminant2.map(String.init) ?? "—") / \(p.calibrationIlluminant3.map(String.init) ?? "—")")
            l.append("  ColorMatrix1      \(m(p.colorMatrix1))")
            l.append("  ColorMatrix2      \(m(p.colorMatrix2))")
            if p.forwardMatrix1 != nil || p.forwardMatrix2 != nil {
                l.append("  ForwardMatrix1    \(m(p.forwardMatrix1))")
                l.append("  ForwardMatrix2    \(m(p.forwardMatrix2))")
            }
            if p.hueSatMapDims != nil { l.append("  HueSatMap         dims \(p.hueSatMapDims!.map(String.init).joined(separator: "x"))") }
            if p.lookTableDims != nil { l.append("  LookTable         dims \(p.lookTableDims!.map(String.init).joined(separator: "x"))") }
            if let t = p.toneCurve { l.append("  ProfileToneCurve  \(t.count / 2) points") }
        }
        if md.cameraCalibration1 != nil { l.append("  CameraCalibration1 \(m(md.cameraCalibration1))") }
        if md.cameraCalibration2 != nil { l.append("  CameraCalibration2 \(m(md.cameraCalibration2))") }
        for (name, bytes) in [("OpcodeList1", md.opcodeList1), ("OpcodeList2", md.opcodeList2), ("OpcodeList3", md.opcodeList3)] {
            if let s = opcodeSummary(bytes) { l.append("  \(name)       " + s.joined(separator: "; ")) }
        }
        var shot: [String] = []
        if let t = md.exif.exposureTime { shot.append(t < 1 ? "1/\(Int((1 / t).rounded())) s" : "\(f(t, 1)) s") }
        if let a = md.exif.fNumber { shot.append("f/\(f(a, 1))") }
        if let i = md.exif.isoSpeed { shot.append("ISO \(i)") }
        if let fl = md.exif.focalLength { shot.append("\(f(fl, 1)) mm") }
        if !shot.isEmpty { l.append("  exposure          " + shot.joined(separator: ", ")) }
        if let d = md.exif.dateTimeOriginal { l.append("  DateTimeOriginal  \(d)") }
        if let lens = md.exif.lensModel { l.append("  lens              \(lens)") }
        if !md.previews.isEmpty { l.append("  previews          " + md.previews.map { "\($0.width)x\($0.height) \($0.kind)" }.joined(separator: ", ")) }
        for w in md.warnings { l.append("  warning           \(w)") }
        return l.joined(separator: "\n")
    }
}
