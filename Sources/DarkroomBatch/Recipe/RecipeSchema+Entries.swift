import DarkroomCore
import DarkroomIO
import Foundation

/// The table. Order is the order of `recipe --print`, `recipe --help` and application (later
/// white-balance keys win over earlier ones: wb ← wb-rect ← wb-gains).
extension RecipeSchema {
    public static let entries: [Entry] = develop + output + bayer + run

    typealias R = ResolvedRecipe

    // MARK: Builders

    static func toggle(_ key: String, _ scope: Scope, _ effect: Effect, default d: Bool, help: String,
                       apply: @escaping @Sendable (Bool, inout R) -> Void, read: @escaping @Sendable (R) -> Bool) -> Entry {
        Entry(key: key, scope: scope, effect: effect, flagKind: .toggle, valueName: "", allowed: "true | false",
              defaultText: d ? "true" : "false", help: help, hashing: .resolved,
              parser: { raw in .bool(try bool(raw)) },
              applier: { v, r in if let b = v.bool { apply(b, &r) } },
              reader: { r in .bool(read(r)) })
    }

    static func integer(_ key: String, _ scope: Scope, _ effect: Effect, _ range: ClosedRange<Int>, value: String,
                        default d: String, help: String, allowed: String? = nil, hashing: Hashing = .resolved,
                        apply: @escaping @Sendable (Int, inout R) -> Void, read: @escaping @Sendable (R) -> Int?) -> Entry {
        Entry(key: key, scope: scope, effect: effect, flagKind: .numeric, valueName: value,
              allowed: allowed ?? "\(range.lowerBound)…\(range.upperBound)", defaultText: d, help: help, hashing: hashing,
              parser: { raw in .int(try integer(raw, range)) },
              applier: { v, r in if let i = v.int { apply(i, &r) } },
              reader: { r in read(r).map(RecipeValue.int) })
    }

    static func enumeration(_ key: String, _ scope: Scope, _ effect: Effect, _ values: [String], aliases: [String: String] = [:],
                            default d: String, help: String, hashing: Hashing = .resolved,
                            apply: @escaping @Sendable (String, inout R) -> Void, read: @escaping @Sendable (R) -> String?) -> Entry {
        Entry(key: key, scope: scope, effect: effect, flagKind: .text, valueName: key.split(separator: "-").last.map(String.init) ?? key,
              allowed: values.joined(separator: " | "), defaultText: d, help: help, hashing: hashing,
              parser: { raw in .text(try choice(raw, values, aliases: aliases)) },
              applier: { v, r in if let t = v.text { apply(t, &r) } },
              reader: { r in read(r).map(RecipeValue.text) })
    }

    static func whiteBalance(_ key: String, value: String, allowed: String, default d: String, help: String,
                             prefix: String) -> Entry {
        Entry(key: key, scope: .develop, effect: .pixels, flagKind: .text, valueName: value, allowed: allowed, defaultText: d,
              help: help, hashing: .resolved,
              parser: { raw in
                  let t = try scalar(raw)
                  do throws(WhiteBalanceRequest.ParseError) { _ = try WhiteBalanceRequest.parse(prefix + t) } catch { throw Reason(error.reason) }
                  return .text(t)
              },
              applier: { v, r in
                  guard let t = v.text else { return }
                  do throws(WhiteBalanceRequest.ParseError) { r.develop.setWhiteBalance(try WhiteBalanceRequest.parse(prefix + t)) } catch { throw Reason(error.reason) }
              },
              // wb-rect and wb-gains read back as `wb: rect:…` / `wb: gains:…`.
              reader: { r in key == "wb" ? .text(r.develop.whiteBalanceText) : nil })
    }

    static func path(_ key: String, value: String, allowed: String, default d: String, help: String,
                     apply: @escaping @Sendable (String?, inout R) -> Void, read: @escaping @Sendable (R) -> String?) -> Entry {
        Entry(key: key, scope: .develop, effect: .pixels, flagKind: .text, valueName: value, allowed: allowed, defaultText: d,
              help: help, hashing: .resolved,
              parser: { raw in .text(try scalar(raw)) },
              applier: { v, r in if let t = v.text { apply(t.isEmpty ? nil : t, &r) } },
              reader: { r in read(r).map(RecipeValue.text) })
    }

    // MARK: Develop (pixels)

    static let develop: [Entry] = [
        enumeration("color-space", .develop, .pixels, OutputColorSpace.allCases.map(\.rawValue), default: "srgb",
                    help: "Output colour space and encoding.",
                    apply: { t, r in if let v = OutputColorSpace(rawValue: t) { r.develop.colorSpace = v } },
                    read: { $0.develop.colorSpace.rawValue }),
        enumeration("demosaic", .develop, .pixels, DemosaicAlgorithm.allCases.map(\.rawValue), default: DemosaicAlgorithm.default.rawValue,
                    help: "Demosaic algorithm.",
                    apply: { t, r in if let v = DemosaicAlgorithm(rawValue: t) { r.develop.demosaic = v } },
                    read: { $0.develop.demosaic.rawValue }),
        whiteBalance("wb", value: "wb", allowed: WhiteBalanceRequest.grammar, default: "as-shot",
                     help: "White balance: as-shot/camera (the file's AsShotNeutral or AsShotWhiteXY), auto (iterative grey world on near-neutral, unclipped samples), a preset (Camera Raw's temperatures, solved through the camera profile), KELVIN[,TINT] (e.g. 5500 or 5500,+10), or a white chromaticity xy:X,Y.",
                     prefix: ""),
        whiteBalance("wb-rect", value: "x,y,w,h", allowed: "integers x,y ≥ 0, w,h ≥ 1, inside the displayed image", default: "none",
                     help: "White balance from a neutral patch x,y,w,h in displayed-image pixels (after DefaultCrop and orientation); a patch outside the image fails that file.",
                     prefix: "rect:"),
        whiteBalance("wb-gains", value: "r,g,b", allowed: "three positive numbers", default: "none",
                     help: "White balance as channel gains r,g,b (any scale).", prefix: "gains:"),
        path("profile", value: "file.dcp", allowed: "a .dcp file ('' = none)", default: "the file's own profile, or a .dcp in Profiles/ matching its UniqueCameraModel",
             help: "Camera profile (.dcp) to use instead of the file's own.",
             apply: { p, r in r.develop.profilePath = p }, read: { $0.develop.profilePath }),
        path("profile-name", value: "name", allowed: "a ProfileName the file embeds", default: "the first embedded profile",
             help: "Use the embedded camera profile with this ProfileName (see `darkroom profiles FILE`).",
             apply: { p, r in r.develop.profileName = p }, read: { $0.develop.profileName }),
        toggle("profile-look", .develop, .pixels, default: true, help: "Apply the profile's HueSatMap/LookTable/ProfileToneCurve.",
               apply: { b, r in r.develop.applyProfileLook = b }, read: { $0.develop.applyProfileLook }),
        enumeration("gamut", .develop, .pixels, GamutMode.allCases.map(\.rawValue), default: GamutMode.preserveHue.rawValue,
                    help: "Gamut mapping: preserve-hue desaturates out-of-gamut colours toward their luminance; clip clips each channel.",
                    apply: { t, r in if let v = GamutMode(rawValue: t) { r.develop.gamut = v } },
                    read: { $0.develop.gamut.rawValue }),
        enumeration("highlights", .develop, .pixels, HighlightMode.allCases.map(\.rawValue), default: HighlightMode.reconstruct.rawValue,
                    help: "Clipped highlights: reconstruct rebuilds clipped channels from the unclipped ones (hue kept); clip runs them to white as the DNG SDK does.",
                    hashing: .unlessEqual(.text(HighlightMode.clip.rawValue)),
                    apply: { t, r in if let v = HighlightMode(rawValue: t) { r.develop.highlights = v } },
                    read: { $0.develop.highlights.rawValue }),
        Entry(key: "noise-reduction", scope: .develop, effect: .pixels, flagKind: .text, valueName: "strength",
              allowed: "auto | off | LUMA[,CHROMA] (0…4)", defaultText: "auto",
              help: "Noise reduction: auto (from the file's NoiseProfile, else the noise estimated from the image when its colours agree; nothing where the noise is invisible), off, or luminance[,chroma] strengths in units of the noise model (1 = the model; the NoiseProfile, else the noise estimated from the image).",
              hashing: .unlessEqual(.text("off")),
              parser: { raw in
                  let t = try scalar(raw)
                  guard let spec = try? NoiseReductionSpec(parsing: t) else { throw Reason("must be auto, off, LUMA or LUMA,CHROMA with strengths 0…4") }
                  return .text(spec.text)
              },
              applier: { v, r in if let t = v.text, let s = try? NoiseReductionSpec(parsing: t) { r.develop.noiseReduction = s } },
              reader: { .text($0.develop.noiseReduction.text) }),
        Entry(key: "sharpen", scope: .develop, effect: .pixels, flagKind: .text, valueName: "amount",
              allowed: "auto | off | AMOUNT[,RADIUS] (0…3, 1…3 px)", defaultText: "auto",
              help: "Capture sharpening on luminance, gated so noise is not amplified: auto (amount 0.4, radius 1), off, or AMOUNT[,RADIUS].",
              hashing: .unlessEqual(.text("off")),
              parser: { raw in
                  let t = try scalar(raw)
                  guard let spec = try? SharpenSpec(parsing: t) else { throw Reason("must be auto, off, AMOUNT (0…3) or AMOUNT,RADIUS (1…3 px)") }
                  return .text(spec.text)
              },
              applier: { v, r in if let t = v.text, let s = try? SharpenSpec(parsing: t) { r.develop.sharpen = s } },
              reader: { .text($0.develop.sharpen.text) }),
        Entry(key: "lens", scope: .develop, effect: .pixels, flagKind: .text, valueName: "which",
              allowed: "auto | off | LIST of distortion, tca, vignetting", defaultText: "auto",
              help: "Lens corrections from the lensfun database: auto (distortion, TCA and vignetting when the database has the camera and lens; not for a DNG whose opcodes already correct it), off, or a list such as distortion,tca.",
              hashing: .unlessEqual(.text("off")),
              parser: { raw in
                  let t = try scalar(raw)
                  guard let spec = try? LensCorrectionSpec(parsing: t) else { throw Reason("must be auto, off, or a list of distortion, tca, vignetting") }
                  return .text(spec.text)
              },
              applier: { v, r in if let t = v.text, let s = try? LensCorrectionSpec(parsing: t) { r.develop.lensCorrection = s } },
              reader: { .text($0.develop.lensCorrection.text) }),
        Entry(key: "exposure", scope: .develop, effect: .pixels, flagKind: .numeric, valueName: "stops", allowed: "-10…10",
              defaultText: "0", help: "Exposure in stops, added to the file's BaselineExposure.", hashing: .resolved,
              parser: { raw in .number(try number(raw, -10...10)) },
              applier: { v, r in if let x = v.number { r.develop.exposureStops = x } },
              reader: { .number($0.develop.exposureStops) }),
        toggle("baseline-exposure", .develop, .pixels, default: true, help: "Apply BaselineExposure / BaselineExposureOffset.",
               apply: { b, r in r.develop.applyBaselineExposure = b }, read: { $0.develop.applyBaselineExposure }),
        enumeration("look", .develop, .pixels, ["reference", "darkroom"], default: "reference",
                    help: "Picture look: reference (the DNG SDK's render, as Adobe software shows a DNG: its default tone curve, exposure ramp and RGB tone) or darkroom (Darkroom's curve with the --tone-shoulder highlight shoulder and the profile's HueSatMap/LookTable).",
                    hashing: .never,
                    apply: { t, r in r.develop.tone = t == "darkroom" ? .standard : .reference },
                    read: { r in r.develop.tone == .linear ? nil : (r.develop.tone == .standard ? "darkroom" : "reference") }),
        enumeration("tone", .develop, .pixels, ["auto"] + ToneCurve.Mode.allCases.map(\.rawValue), default: "auto",
                    help: "Tone curve: auto (the look's), linear (pure colorimetric render: no curve, no look), reference or standard (the reference or darkroom look's curve, whatever --look says).",
                    apply: { t, r in if let v = ToneCurve.Mode(rawValue: t) { r.develop.tone = v } },
                    read: { $0.develop.tone.rawValue }),
        Entry(key: "tone-shoulder", scope: .develop, effect: .pixels, flagKind: .numeric, valueName: "b", allowed: "0.25…64",
              defaultText: "2", help: "Shoulder b of the standard tone curve y = (1+b)x/(x+b): smaller compresses highlights harder and lifts mid-tones more (b = 2: mid-grey 0.18 → 0.248), larger approaches linear.",
              hashing: .unlessDefault,
              parser: { raw in .number(try number(raw, 0.25...64)) },
              applier: { v, r in if let x = v.number { r.develop.toneShoulder = x } },
              reader: { .number($0.develop.toneShoulder) }),
        integer("bit-depth", .develop, .pixels, 8...32, value: "bits", default: "8",
                help: "Bits per sample for TIFF/HEIF output (JPEG is always 8). 32: float TIFF, linear (the render before its transfer function and quantisation, in the colour space's linear variant, not clipped; the tone curve as --tone says: linear for numerical work). EXR is half unless 32.", allowed: "8 | 16 | 32",
                apply: { v, r in r.develop.bitsPerSample = v }, read: { $0.develop.bitsPerSample })
            .restricted { v in guard v == .int(8) || v == .int(16) || v == .int(32) else { throw Reason("must be 8, 16 or 32") } },
        toggle("dither", .develop, .pixels, default: true, help: "Dither 8-bit output (false rounds to nearest).",
               apply: { b, r in r.develop.dither = b }, read: { $0.develop.dither }),
        toggle("crop", .develop, .pixels, default: true, help: "Apply DefaultCrop.",
               apply: { b, r in r.develop.applyDefaultCrop = b }, read: { $0.develop.applyDefaultCrop }),
        toggle("orientation", .develop, .pixels, default: true, help: "Apply the file's Orientation to the pixels (outputs are written with Orientation 1).",
               apply: { b, r in r.develop.applyOrientation = b }, read: { $0.develop.applyOrientation }),
        Entry(key: "opcodes", scope: .develop, effect: .pixels, flagKind: .text, valueName: "lists",
              allowed: "all | none | a list of list1, list2, list3", defaultText: "all", help: "DNG opcode lists to apply (OpcodeList1/2/3).",
              hashing: .resolved,
              parser: { raw in .text(try DevelopRecipe.OpcodeSelection(parsing: try scalar(raw)).text) },
              applier: { v, r in
                  guard let t = v.text else { return }
                  let s = try DevelopRecipe.OpcodeSelection(parsing: t)
                  r.develop.applyOpcodes = s.apply; r.develop.opcodeLists = s.lists
              },
              reader: { .text(DevelopRecipe.OpcodeSelection(apply: $0.develop.applyOpcodes, lists: $0.develop.opcodeLists).text) }),
        integer("thumbnail-size", .develop, .bytes, 0...65535, value: "pixels", default: "320",
                help: "Long side of the embedded thumbnail in pixels (0 = none; never larger than the image).",
                apply: { v, r in r.develop.thumbnailSize = v }, read: { $0.develop.thumbnailSize }),
        integer("tile-size", .develop, .speed, 16...8192, value: "pixels", default: "256",
                help: "Tile edge in pixels.",
                apply: { v, r in r.develop.tileSize = v }, read: { $0.develop.tileSize }),
        integer("threads", .develop, .speed, 0...1024, value: "n", default: "0 (cores ÷ files in flight)",
                help: "Worker threads per image.",
                apply: { v, r in r.develop.threads = v }, read: { $0.develop.threads }),
    ]

    // MARK: Output (bytes and names)

    static let formatAliases = ["jpg": "jpeg", "heic": "heif", "tif": "tiff"]

    /// The kinds `--mattes` accepts: those develop computes (the neural semantic planes and
    /// MatteBuilder's own). Every other kind is refused with `unrequestableMatteReason`.
    static let requestableMatteNames = MatteKind.allCases
        .filter { MatteKind.semanticKinds.contains($0) || MatteBuilder.computableKinds.contains($0) }.map(\.rawValue)

    /// Why `--mattes KIND` cannot be honoured, and what to do instead (one line).
    static func unrequestableMatteReason(_ kind: MatteKind) -> String {
        let k = kind.rawValue
        switch kind {
        case .hair, .sky, .glasses:
            return "\(k) cannot be computed: no \(k)-segmentation model with a usable licence ships with MediaPipe 0.10.21, "
                + "and a colour guess must not carry Apple's \(k) URN (supply one with --matte \(k)=FILE.png)"
        case .constantColourConfidence:
            return "\(k) is written by `darkroom constant-colour`, not by develop (supply one with --matte \(k)=FILE.png)"
        default:
            return "\(k) is not computed by develop (supply one with --matte \(k)=FILE.png)"
        }
    }

    static let output: [Entry] = [
        Entry(key: "format", scope: .output, effect: .naming, flagKind: .text, valueName: "formats",
              allowed: "a list of " + OutputFormat.allCases.map(\.rawValue).joined(separator: ", ") + " (or jpg, heic, tif)",
              defaultText: "jpeg", help: "Output formats (comma-separated, or a YAML list); several formats come from one decode and render. exr: OpenEXR, linear float (half; float32 with --bit-depth 32) with its chromaticities. Recorded per output, not in the recipe hash.",
              hashing: .resolved,
              parser: { raw in .list(try choices(raw, OutputFormat.allCases.map(\.rawValue), aliases: formatAliases, allowEmpty: false)) },
              applier: { v, r in if let l = v.list { r.formats = l.compactMap(OutputFormat.init(rawValue:)); r.export.format = r.formats.first ?? .jpeg } },
              reader: { .list($0.formats.map(\.rawValue)) }),
        integer("quality", .output, .bytes, 1...100, value: "quality", default: "JPEG 90, HEIF 50 (x265 preset ultrafast, comparable to JPEG 90)",
                help: "Encoder quality.", hashing: .asGiven,
                apply: { v, r in r.export.quality = v }, read: { $0.export.quality }),
        enumeration("chroma", .output, .bytes, ["444", "420"], aliases: ["4:4:4": "444", "4:2:0": "420"], default: "420",
                    help: "HEIF chroma subsampling: 420 (HEVC Main, as iPhones write; every decoder) or 444 (more colour detail per byte, HEVC RExt).",
                    // 444 was the default before 420: left out of the hash when 444, so earlier
                    // manifests (chroma absent = 444, or "420" as given) stay valid for what they made.
                    hashing: .unlessEqual(.text("444")),
                    apply: { t, r in r.export.heifChroma444 = t == "444" }, read: { $0.export.heifChroma444 ? "444" : "420" }),
        Entry(key: "nclx", scope: .output, effect: .bytes, flagKind: .toggle, valueName: "", allowed: "true | false",
              defaultText: "false", help: "HEIF: also write an nclx colour box beside the ICC profile (sRGB and Display P3 only; iOS 12 rejects both).",
              hashing: .unlessDefault,
              parser: { raw in .bool(try bool(raw)) },
              applier: { v, r in if let b = v.bool { r.export.heifNCLX = b } },
              reader: { r in .bool(r.export.heifNCLX) }),
        toggle("strip-metadata", .output, .bytes, default: false, help: "Write no EXIF/XMP/thumbnail (the ICC profile is always embedded).",
               apply: { b, r in r.export.stripMetadata = b }, read: { $0.export.stripMetadata }),
        Entry(key: "name", scope: .output, effect: .naming, flagKind: .text, valueName: "template",
              allowed: "text with " + OutputNamer.placeholders.map { "{\($0)}" }.joined(separator: " "),
              defaultText: "'\(OutputNamer.defaultTemplate)'", help: "Output name template below OUTDIR.", hashing: .resolved,
              parser: { raw in
                  let t = try scalar(raw)
                  guard !t.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                      throw Reason("must not contain control characters")
                  }
                  do throws(BatchError) { _ = try OutputNamer(template: t) } catch {
                      throw Reason(error.description.hasPrefix("--name: ") ? String(error.description.dropFirst(8)) : error.description)
                  }
                  return .text(t)
              },
              applier: { v, r in if let t = v.text { r.name = t } },
              reader: { .text($0.name) }),
        Entry(key: "mattes", scope: .output, effect: .bytes, flagKind: .text, valueName: "kinds",
              allowed: "a list of " + requestableMatteNames.joined(separator: ", "), defaultText: "none",
              help: "Mattes to compute and embed (comma-separated, or a YAML list); portrait, skin, teeth, lips by neural segmentation (`make models`).",
              hashing: .asGiven,
              parser: { raw in
                  // A kind with no model (hair, sky, glasses) or no develop-time source is refused, never
                  // silently dropped; never a colour heuristic under Apple's URN.
                  for name in try choices(raw, MatteKind.allCases.map(\.rawValue), allowEmpty: true)
                  where !requestableMatteNames.contains(name) {
                      if let kind = MatteKind(rawValue: name) { throw Reason(unrequestableMatteReason(kind)) }
                  }
                  return .list(try choices(raw, requestableMatteNames, allowEmpty: true))
              },
              applier: { v, r in if let l = v.list { r.export.computedMattes = l.compactMap(MatteKind.init(rawValue:)) } },
              reader: { .list($0.export.computedMattes.map(\.rawValue)) }),
        Entry(key: "matte", scope: .output, effect: .bytes, flagKind: .repeatable, valueName: "KIND=FILE",
              allowed: "KIND=FILE.png (flag, repeatable) or {KIND: FILE.png} (recipe file)", defaultText: "none",
              help: "Mattes supplied as 8-bit PNGs.", hashing: .asGiven,
              parser: { raw in
                  var d: [String: String] = [:]
                  for (k, p) in try pairs(raw, what: "KIND=FILE.png") {
                      guard MatteKind(rawValue: k) != nil else {
                          throw Reason("unknown matte kind '\(k)' (\(MatteKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                      }
                      d[k] = p
                  }
                  return .map(d)
              },
              applier: { v, r in
                  r.export.suppliedMattes = (v.map ?? [:]).sorted { $0.key < $1.key }.compactMap { k, p in
                      MatteKind(rawValue: k).map { SuppliedMatteSpec(kind: $0, path: p) }
                  }
              },
              reader: { r in
                  r.export.suppliedMattes.isEmpty ? nil
                      : .map(Dictionary(r.export.suppliedMattes.map { ($0.kind.rawValue, $0.path) }, uniquingKeysWith: { _, b in b }))
              }),
    ]

    // MARK: Bayer dumps (input)

    static let bayer: [Entry] = [
        enumeration("bayer", .bayer, .input, ["rggb", "grbg", "bggr", "gbrg"], default: "none (files are RAW/DNG)",
                    help: "Read inputs as headerless Bayer dumps (16-bit little-endian samples) with this CFA order.",
                    apply: { t, r in r.bayerCFA = CFAPattern(name: t); r.bayerCFAName = t }, read: { $0.bayerCFAName }),
        integer("bits", .bayer, .input, 8...16, value: "bits", default: "14", help: "Bayer dump: significant bits per sample.",
                apply: { v, r in r.bayerBits = v }, read: { $0.bayerBits }),
        Entry(key: "size", scope: .bayer, effect: .input, flagKind: .text, valueName: "WxH", allowed: "16…65535 per side",
              defaultText: "none (required with --bayer)", help: "Bayer dump: image size WIDTHxHEIGHT.", hashing: .resolved,
              parser: { raw in let s = try imageSize(raw); return .text("\(s.width)x\(s.height)") },
              applier: { v, r in if let t = v.text { r.bayerSize = try imageSize(.text(t)) } },
              reader: { r in r.bayerSize.map { .text("\($0.width)x\($0.height)") } }),
        Entry(key: "black", scope: .bayer, effect: .input, flagKind: .numeric, valueName: "level", allowed: "0…65534",
              defaultText: "0", help: "Bayer dump: black level in sensor units.", hashing: .resolved,
              parser: { raw in .number(try number(raw, 0...65534)) },
              applier: { v, r in r.bayerBlack = v.number }, reader: { $0.bayerBlack.map(RecipeValue.number) }),
        Entry(key: "white", scope: .bayer, effect: .input, flagKind: .numeric, valueName: "level", allowed: "1…65535, above --black",
              defaultText: "2^bits − 1", help: "Bayer dump: white level in sensor units.", hashing: .resolved,
              parser: { raw in .number(try number(raw, 1...65535)) },
              applier: { v, r in r.bayerWhite = v.number }, reader: { $0.bayerWhite.map(RecipeValue.number) }),
        integer("stride", .bayer, .input, 32...(1 << 31), value: "bytes", default: "width × 2",
                help: "Bayer dump: bytes per row (≥ width × 2; larger values skip row padding).",
                apply: { v, r in r.bayerStride = v }, read: { $0.bayerStride }),
    ]

    // MARK: Batch (run)

    static let run: [Entry] = [
        integer("jobs", .run, .run, 1...1024, value: "n", default: "one per core", help: "Files developed at once.",
                apply: { v, r in r.jobs = v }, read: { $0.jobs }),
        Entry(key: "memory", scope: .run, effect: .run, flagKind: .text, valueName: "size",
              allowed: "bytes with an optional K, M, G or T suffix (binary), 1 byte … 1 EiB", defaultText: "half the physical memory",
              help: "Memory budget for all files in flight, e.g. 4G or 512M.", hashing: .resolved,
              parser: { raw in .int(Int(try byteSize(raw))) },
              applier: { v, r in r.memoryBudget = v.int.map(Int64.init) }, reader: { $0.memoryBudget.map { .int(Int($0)) } }),
        Entry(key: "shard", scope: .run, effect: .run, flagKind: .text, valueName: "K/N", allowed: "1 ≤ K ≤ N, or auto / auto/N (from SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ)",
              defaultText: "none (every input)",
              help: "Develop only shard K of N (1-based), chosen by a hash of each input's path relative to its input root; auto takes K/N from a SLURM array task, auto/N takes K from JOB_COMPLETION_INDEX (Kubernetes) or PARALLEL_SEQ (GNU parallel).",
              hashing: .resolved,
              parser: { raw in
                  let t = try scalar(raw)
                  do throws(BatchError) { let s = try Shard(parsing: t); return .text(s.description) } catch {
                      throw Reason(error.description.hasPrefix("--shard ") ? String(error.description.dropFirst(8)) : error.description)
                  }
              },
              applier: { v, r in if let t = v.text { r.shard = try? Shard(parsing: t) } },
              reader: { $0.shard.map { .text($0.description) } }),
    ]
}

extension RecipeSchema.Entry {
    /// This entry with an extra check after its parser.
    func restricted(_ check: @escaping @Sendable (RecipeValue) throws -> Void) -> Self {
        let p = parser
        return Self(key: key, scope: scope, effect: effect, flagKind: flagKind, valueName: valueName, allowed: allowed,
                    defaultText: defaultText, help: help, hashing: hashing,
                    parser: { raw in let v = try p(raw); try check(v); return v }, applier: applier, reader: reader)
    }
}
