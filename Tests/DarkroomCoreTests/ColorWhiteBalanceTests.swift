import DarkroomCore
import DarkroomFormats
import Testing

/// `WhiteBalanceRequest` parsing and resolution, `WhiteBalanceEstimator` on synthetic charts.
@Suite("Colour: white balance requests")
struct ColorWhiteBalanceTests {
    @Test(arguments: [
        ("as-shot", WhiteBalanceRequest.asShot), ("camera", .asShot), ("AUTO", .auto),
        ("daylight", .preset(.daylight)), ("Tungsten", .preset(.tungsten)), ("fluorescent", .preset(.fluorescent)),
        ("5000", .temperature(kelvin: 5000, tint: 0)), ("5000K,-5", .temperature(kelvin: 5000, tint: -5)),
        ("6500, 10", .temperature(kelvin: 6500, tint: 10)),
        ("xy:0.3127,0.329", .whiteXY(Chromaticity(x: 0.3127, y: 0.329))),
        ("rect:10,20,30,40", .rect(PixelRect(x: 10, y: 20, width: 30, height: 40))),
        ("gains:2,1,1.5", .gains(SIMD3(2, 1, 1.5))),
    ])
    func parses(text: String, expected: WhiteBalanceRequest) throws {
        #expect(try WhiteBalanceRequest.parse(text) == expected)
    }

    @Test(arguments: ["warm", "5000,1,2", "xy:0.7,0.5", "xy:0.3", "100", "5000,abc", "rect:1,2,3", "gains:1,0,1", ""])
    func rejects(text: String) {
        #expect(throws: WhiteBalanceRequest.ParseError.self) { _ = try WhiteBalanceRequest.parse(text) }
    }

    @Test func optionForms() throws {
        #expect(try WhiteBalanceRequest.parseRect("1,2,3,4") == .rect(PixelRect(x: 1, y: 2, width: 3, height: 4)))
        #expect(try WhiteBalanceRequest.parseGains("2,1,1.25") == .gains(SIMD3(2, 1, 1.25)))
        #expect(throws: WhiteBalanceRequest.ParseError.self) { _ = try WhiteBalanceRequest.parseRect("1,2,0,4") }
        let e = WhiteBalanceRequest.ParseError.badNumbers(option: "--wb-gains", value: "1,x", reason: "need 3 comma-separated numbers")
        #expect(e.description == "--wb-gains '1,x': need 3 comma-separated numbers")
    }

    static func chart(_ white: Chromaticity, orientation: Int = 1) throws -> (RawImage, DNGColorModel, SIMD3<Double>) {
        var raw = SyntheticChart(cfa: .grbg, bitsPerSample: 14, illuminant: white, width: 240, height: 160).makeRawImage()
        raw.metadata.orientation = orientation
        let model = try DNGColorModel(metadata: raw.metadata)
        let n = try #require(raw.metadata.asShotNeutral)
        return (raw, model, SIMD3(n[0], n[1], n[2]))
    }

    static func neutral(_ spec: WhiteBalanceSpec) -> SIMD3<Double>? {
        guard case .cameraNeutral(let v) = spec, v.count == 3 else { return nil }
        return SIMD3(v[0], v[1], v[2])
    }

    @Test func presetsGainsAndTemperatures() throws {
        let (raw, model, _) = try Self.chart(ColorMath.d65)
        #expect(WhiteBalanceRequest.preset(.tungsten).resolve(raw: raw, model: model) == .temperature(kelvin: 2850, tint: 0))
        #expect(WhiteBalanceRequest.temperature(kelvin: 5000, tint: 3).resolve(raw: raw, model: model) == .temperature(kelvin: 5000, tint: 3))
        #expect(WhiteBalanceRequest.gains(SIMD3(2, 1, 4)).resolve(raw: raw, model: model) == .cameraNeutral([0.5, 1, 0.25]))
        #expect(WhiteBalanceRequest.asShot.resolve(raw: raw, model: model) == .asShot)
        // A preset's white is solved through the profile: the neutral is the camera's response to 2850 K.
        let s = model.solve(WhiteBalanceRequest.preset(.tungsten).resolve(raw: raw, model: model))
        #expect(abs(s.temperatureKelvin - 2850) < 0.5 && abs(s.tint) < 0.01)
    }

    /// Auto finds the as-shot neutral on charts under D65 and A (grey patches + neutral surround),
    /// also when a third of the frame is a saturated red and a block is clipped.
    @Test(arguments: [ColorMath.d65, ColorMath.illuminantA])
    func autoMatchesAsShot(white: Chromaticity) throws {
        var (raw, model, asShot) = try Self.chart(white)
        let plain = try #require(Self.neutral(WhiteBalanceRequest.auto.resolve(raw: raw, model: model)))
        #expect(abs(plain - asShot).max() < 0.01, "auto \(plain) vs as-shot \(asShot)")

        // Paint the left third with the chart's red patch at 1.5× and a 40×40 clipped block.
        let chart = SyntheticChart(cfa: .grbg, bitsPerSample: 14, illuminant: white, width: 240, height: 160)
        let red = chart.cameraValues(patch: 14) * 1.5
        let black = raw.metadata.blackLevel, whiteLevel = Double(chart.whiteLevel)
        let cfa = try #require(raw.metadata.cfa)
        for y in 0..<raw.height {
            for x in 0..<raw.width / 3 {
                let site = (y & 1) << 1 | (x & 1)
                raw.pixels[y * raw.width + x] = UInt16(black[site] + red[Int(cfa.color(x: x, y: y).rawValue)] * (whiteLevel - black[site]))
            }
        }
        for y in 100..<140 { for x in 100..<140 { raw.pixels[y * raw.width + x] = UInt16(whiteLevel) } }
        let robust = try #require(Self.neutral(WhiteBalanceRequest.auto.resolve(raw: raw, model: model)))
        #expect(abs(robust - asShot).max() < 0.02, "auto \(robust) vs as-shot \(asShot)")
    }

    /// The white patch as a neutral rectangle, in the developed frame, upright and rotated (orientation 6).
    @Test(arguments: [1, 6, 3, 8])
    func rectOnWhitePatch(orientation: Int) throws {
        let (raw, model, asShot) = try Self.chart(ColorMath.illuminantA, orientation: orientation)
        let chart = SyntheticChart(cfa: .grbg, bitsPerSample: 14, illuminant: ColorMath.illuminantA, width: 240, height: 160)
        let crop = try #require(raw.metadata.defaultCrop)
        let p = chart.patchRects[18]
        // Centre half of the patch, relative to the crop.
        let s = PixelRect(x: p.x - crop.x + p.width / 4, y: p.y - crop.y + p.height / 4, width: p.width / 2, height: p.height / 2)
        let w = crop.width, h = crop.height
        let display: PixelRect
        switch orientation {
        case 6: display = PixelRect(x: h - s.maxY, y: s.x, width: s.height, height: s.width)
        case 3: display = PixelRect(x: w - s.maxX, y: h - s.maxY, width: s.width, height: s.height)
        case 8: display = PixelRect(x: s.y, y: w - s.maxX, width: s.height, height: s.width)
        default: display = s
        }
        #expect(WhiteBalanceEstimator(raw: raw).storedRect(displayRect: display)
                == PixelRect(x: s.x + crop.x, y: s.y + crop.y, width: s.width, height: s.height))
        let n = try #require(Self.neutral(WhiteBalanceRequest.rect(display).resolve(raw: raw, model: model)))
        // The white patch (sRGB 243, 243, 242) is not exactly neutral: compare with its camera values.
        let patch = chart.cameraValues(patch: 18)
        #expect(abs(n - patch / patch.max()).max() < 2e-4, "rect \(n) vs patch \(patch / patch.max())")
        #expect(abs(n - asShot).max() < 0.005)
        // Outside the image: falls back to as-shot.
        #expect(WhiteBalanceRequest.rect(PixelRect(x: 5000, y: 5000, width: 4, height: 4)).resolve(raw: raw, model: model) == .asShot)
    }
}
