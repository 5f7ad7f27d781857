import DarkroomCore
import Foundation

extension ConstantColourDeveloper {
    /// The XMP namespace of the scalar result (`darkroom:ConstantColorConfidence`, 0…1, and
    /// `darkroom:ConstantColorFallback`, True on the fallback render).
    public static let xmpNamespace = "http://ns.darkroom.org/constantcolor/1.0/"

    /// The result as display-referred sRGB: XYZ (D65) → Bradford → XYZ D50 → linear sRGB, scaled
    /// by 2^(the ambient frame's BaselineExposure), clipped to 0…1, sRGB transfer curve, rounded
    /// to 8 or 16 bits. No tone curve or look (the colour stays colorimetric).
    public static func rendered(_ r: ConstantColourResult, baselineExposureStops: Double, bitsPerSample: Int) -> RenderedImage {
        let toD50 = ColorMath.bradford(from: ColorMath.d65, to: ColorMath.d50)
        let scale = pow(2, max(-16, min(16, baselineExposureStops.isFinite ? baselineExposureStops : 0)))
        let m = scale * (OutputColorSpace.srgb.xyzD50ToLinearRGB * toD50)
        let n = r.width * r.height
        let sixteen = bitsPerSample == 16
        var p8 = [UInt8](), p16 = [UInt16]()
        if sixteen { p16 = [UInt16](repeating: 0, count: 3 * n) } else { p8 = [UInt8](repeating: 0, count: 3 * n) }
        let transfer = TransferFunction.srgb
        for i in 0..<n {
            let xyz = SIMD3<Double>(Double(r.xyzD65[3 * i]), Double(r.xyzD65[3 * i + 1]), Double(r.xyzD65[3 * i + 2]))
            let rgb = m * xyz
            for c in 0..<3 {
                let v = rgb[c].isFinite ? min(max(rgb[c], 0), 1) : 0
                let e = transfer.encode(v)
                if sixteen { p16[3 * i + c] = UInt16((e * 65535).rounded()) } else { p8[3 * i + c] = UInt8((e * 255).rounded()) }
            }
        }
        return RenderedImage(width: r.width, height: r.height, bitsPerSample: sixteen ? 16 : 8, pixels8: p8, pixels16: p16,
                             colorSpaceName: OutputColorSpace.srgb.rawValue, iccProfile: [])
    }

    /// The confidence map as an auxiliary plane of the matte machinery: half the image's size
    /// (rounded up, as Darkroom's and Apple's mattes), each value the lowest confidence of its 2×2 block.
    public static func confidencePlane(_ r: ConstantColourResult) -> AuxiliaryPlane {
        let (w, h) = MatteBuilder.planeSize(width: r.width, height: r.height)
        var px = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w {
            var v: UInt8 = 255
            for yy in (2 * y)..<min(r.height, 2 * y + 2) { for xx in (2 * x)..<min(r.width, 2 * x + 2) { v = min(v, r.confidence[yy * r.width + xx]) } }
            px[y * w + x] = v
        } }
        return AuxiliaryPlane(kind: .constantColourConfidence, width: w, height: h, pixels: px)
    }

    /// The XMP packet carrying the centre-weighted confidence (3 decimals) and whether the image is the fallback.
    public static func xmpPacket(confidence: Double, fallback: Bool) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Darkroom">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:darkroom="\(xmpNamespace)">
           <darkroom:ConstantColorConfidence>\(String(format: "%.3f", confidence))</darkroom:ConstantColorConfidence>
           <darkroom:ConstantColorFallback>\(fallback ? "True" : "False")</darkroom:ConstantColorFallback>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    /// Output paths for a pair: OUTDIR/STEM-constant-colour.EXT per format, OUTDIR/STEM-fallback.EXT
    /// per format, OUTDIR/STEM-constant-colour.json; STEM = the ambient file's name without extension.
    public static func outputPaths(ambient: String, outputDirectory: String, formats: [OutputFormat])
        -> (images: [(OutputFormat, String)], fallbacks: [(OutputFormat, String)], report: String) {
        outputPaths(stem: URL(fileURLWithPath: ambient).deletingPathExtension().lastPathComponent,
                    outputDirectory: outputDirectory, formats: formats)
    }

    /// Output paths for a pair whose outputs are named after `stem`.
    public static func outputPaths(stem: String, outputDirectory: String, formats: [OutputFormat])
        -> (images: [(OutputFormat, String)], fallbacks: [(OutputFormat, String)], report: String) {
        func path(_ suffix: String) -> String { (outputDirectory as NSString).appendingPathComponent(stem + suffix) }
        return (formats.map { ($0, path("-constant-colour.\($0.fileExtension)")) },
                formats.map { ($0, path("-fallback.\($0.fileExtension)")) },
                path("-constant-colour.json"))
    }

    /// Steps 1–7 for a pair: solves it, writes the constant-colour image(s) with the confidence
    /// plane and XMP, the fallback render(s) of the ambient frame when `options.fallback` asks
    /// (auto: centre-weighted confidence < `minConfidence`), and the JSON report. Refuses to
    /// replace existing outputs unless `options.overwrite` (checked before anything is written).
    /// `stem` names the outputs (default: the ambient file's name without extension).
    @discardableResult
    public static func run(ambient: String, flash: String, outputDirectory: String,
                           options: ConstantColourOptions, stem: String? = nil) throws(Failure) -> ConstantColourReport {
        let paths = stem.map { outputPaths(stem: $0, outputDirectory: outputDirectory, formats: options.formats) }
            ?? outputPaths(ambient: ambient, outputDirectory: outputDirectory, formats: options.formats)
        let all = paths.images.map(\.1) + paths.fallbacks.map(\.1) + [paths.report]
        if !options.overwrite, let existing = all.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            throw .write(.exists(path: existing))
        }
        let solved = try solve(ambient: ambient, flash: flash, options: options)
        let r = solved.result
        let writeFallback: Bool
        switch options.fallback {
        case .always: writeFallback = true
        case .never: writeFallback = false
        case .auto: writeFallback = r.centreWeightedConfidence < options.minConfidence
        }
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw .write(.io(path: outputDirectory, reason: "cannot create the output directory"))
        }

        let baseline = (solved.ambient.metadata.baselineExposure ?? 0) + (solved.ambient.metadata.profile?.baselineExposureOffset ?? 0)
        let wide = options.bitsPerSample == 16 && options.formats.contains(where: { $0 != .jpeg })
        var image = rendered(r, baselineExposureStops: baseline, bitsPerSample: wide ? 16 : 8)
        do { image.iccProfile = try ICCProfileFactory.profile(for: .srgb) } catch {
            throw .encode(path: ambient, reason: "ICC profile: \(error)")
        }
        image.mattes = [confidencePlane(r)]
        var exif = solved.ambient.metadata.exif
        exif.software = "Darkroom \(DarkroomVersion.string)"
        exif.xmp = xmpPacket(confidence: r.centreWeightedConfidence, fallback: false)
        image.exif = exif
        var export = ExportOptions()
        export.overwrite = options.overwrite
        for (format, path) in paths.images {
            let bytes: [UInt8]
            do { bytes = try FileDeveloper.encode(image, format: format, export: export, input: ambient) } catch {
                throw .encode(path: path, reason: error.description)
            }
            do { try AtomicWriter.write(bytes, to: path, overwrite: options.overwrite) } catch { throw .write(error) }
        }
        var fallbackOutputs: [String] = []
        if writeFallback {
            // The ordinary develop of the ambient frame (default recipe), marked in XMP.
            var recipe = DevelopRecipe()
            recipe.threads = options.threads
            recipe.bitsPerSample = wide ? 16 : 8
            var decode = DecodeOptions()
            decode.threads = options.threads
            let raw: RawImage
            do { raw = try RawDecoder.decode(path: ambient, options: decode) } catch { throw .fallback(.decode(error)) }
            let plan: DevelopPlan
            do { plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: ambient) } catch { throw .fallback(error) }
            var fallbackImage = TileRenderer.render(raw, plan: plan)
            do { fallbackImage.iccProfile = try ICCProfileFactory.profile(for: recipe.colorSpace) } catch {
                throw .encode(path: ambient, reason: "ICC profile: \(error)")
            }
            fallbackImage.exif.software = "Darkroom \(DarkroomVersion.string)"
            fallbackImage.exif.xmp = xmpPacket(confidence: r.centreWeightedConfidence, fallback: true)
            for (format, path) in paths.fallbacks {
                let bytes: [UInt8]
                do { bytes = try FileDeveloper.encode(fallbackImage, format: format, export: export, input: ambient) } catch {
                    throw .encode(path: path, reason: error.description)
                }
                do { try AtomicWriter.write(bytes, to: path, overwrite: options.overwrite) } catch { throw .write(error) }
                fallbackOutputs.append(path)
            }
        }
        let report = ConstantColourReport(
            ambient: ambient, flash: flash, outputs: paths.images.map(\.1), fallbackOutputs: fallbackOutputs,
            centreWeightedConfidence: (r.centreWeightedConfidence * 1000).rounded() / 1000,
            minConfidence: options.minConfidence, fallback: options.fallback.rawValue,
            exposureRatio: r.ambientScale,
            registration: .init(dx: r.registration.dx, dy: r.registration.dy, residual: (r.registration.residual * 1000).rounded() / 1000),
            flashProfile: solved.flashSource, flashWhiteXY: [solved.flashWhite.x, solved.flashWhite.y],
            medianFlashRatio: (r.medianFlashRatio * 1000).rounded() / 1000,
            maskFractions: r.fractions.mapValues { ($0 * 10000).rounded() / 10000 },
            parameters: options.parameters, warnings: solved.warnings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json: Data
        do { json = try encoder.encode(report) } catch { throw .encode(path: paths.report, reason: "\(error)") }
        do { try AtomicWriter.write([UInt8](json) + [10], to: paths.report, overwrite: options.overwrite) } catch { throw .write(error) }
        return report
    }
}
