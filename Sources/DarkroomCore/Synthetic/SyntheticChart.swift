/// A 24-patch ColorChecker-style chart photographed by a synthetic, noise-free camera, as a
/// `RawImage` with complete DNG-style metadata. Used by samples and by colour-accuracy tests:
/// developing it must reproduce `expectedXYZD50(patch:)`.
///
/// - Patches: the BabelColor average ColorChecker values in 8-bit sRGB (D65), decoded with the
///   sRGB curve → XYZ D65 → Bradford to D50 (`OutputColorSpace.srgb.linearRGBToXYZD50`), so every
///   patch lies inside sRGB and Display P3. Scene exposure: a perfect white diffuser would be
///   `sceneScale` (0.9) of a neutral's clipping point, so the white patch sits at ≈ 0.81.
///   Developing with +log2(1/0.9) ≈ 0.152 stops reproduces the 8-bit sRGB values.
/// - Camera: `ColorMatrix1` (StdA, code 17) and `ColorMatrix2` (D65, code 21), plausible
///   XYZ → camera matrices. Under `illuminant` the camera sees
///   `CM(illuminant) · Bradford(D50 → illuminant) · XYZ_D50 / s`, with CM interpolated exactly as
///   `DNGColorModel` does and s = max(CM · XYZ(illuminant)), i.e. the inverse of the DNG model with
///   no ForwardMatrix. `AsShotNeutral` is the illuminant's camera response, max 1.
/// - Raw encoding: per-CFA-site black levels (12-bit: 256, 258, 254, 257; scaled ×2^(bits−12)
///   above 12 bits) with BlackLevelRepeatDim 2×2, WhiteLevel 2^bits − 1, no noise,
///   DefaultCrop inset by 8 px, BaselineExposure 0, Make "Darkroom", Model "Synthetic Chart".
/// - Layout: 6 × 4 patches on a dark grey (3 % reflectance) surround; see `patchRects`.
public struct SyntheticChart: Sendable {
    /// How the synthetic camera's profile is built.
    public struct Camera: Sendable, Equatable {
        /// true: a Luther camera, raw = T · XYZ with one fixed matrix T (`colorMatrix2`), so
        /// `AnalogBalance · CameraCalibration · ColorMatrix1/2` are both T (ColorMatrix1 at a
        /// different scale) and the DNG model is exact at every white. false: the classic chart,
        /// `colorMatrix1`/`colorMatrix2` as given (the camera is what the model says it is).
        public var linear: Bool
        /// Add `ForwardMatrix1/2`: the exact ones of the Luther camera at each calibration
        /// illuminant, `Bradford(illuminant → D50) · R⁻¹ · diag(R · XYZ(illuminant))` with R the
        /// reference camera, normalised so FM · (1, 1, 1) = XYZ_D50. (Only with `linear`.)
        public var forwardMatrix: Bool
        /// `CameraCalibration1` = `CameraCalibration2` (the individual camera differs from the
        /// reference camera by it); only with `linear`.
        public var cameraCalibration: Matrix3?
        /// `AnalogBalance`; only with `linear`.
        public var analogBalance: SIMD3<Double>?
        /// `CalibrationIlluminant1/2` EXIF codes (default StdA 17, D65 21).
        public var calibrationIlluminants: (Int, Int)
        /// The reference camera's channels are the Bradford cone responses (scaled 0.9, 1, 1.2)
        /// instead of `colorMatrix2`. Then the exact ForwardMatrix is the same at every white
        /// (Bradford adaptation is diagonal in exactly this space), so the DNG model, which
        /// interpolates ForwardMatrix1/2 linearly, is exact at every white, not only at the
        /// calibration illuminants. With a general camera, FM interpolation is an approximation
        /// inherent to the DNG model (measured in the colour note).
        public var coneCamera: Bool = false
        /// A third calibration set (DNG 1.6 triple-illuminant profile; only with `linear`). The
        /// camera's response then differs per illuminant, as the triple model describes it:
        /// `ColorMatrix1/2/3` = 0.8·X1·R, R, 1.1·X3·R (R the reference camera, X1/X3 the fixed
        /// crosstalk matrices `tripleCrosstalk1/3`), and under a scene white the camera is
        /// their blend with `DNGColorModel.tripleIlluminantWeights`. `CameraCalibration3` =
        /// `cameraCalibration`; `ForwardMatrix3` with `forwardMatrix`.
        public var third: ThirdCalibration?
        /// With `third`: `ProfileHueSatMapDims` 6×2×1 and `ProfileHueSatMapData1/2/3`
        /// (`tripleHueSatMap`), so a render applies their blend (not for `--tone linear` truth tests:
        /// the tables change colours on purpose).
        public var hueSatMaps: Bool = false

        /// Set 3 of a triple-illuminant chart: its EXIF light source code and, for 255 (Other),
        /// its x-y chromaticity (`IlluminantData3`).
        public struct ThirdCalibration: Sendable, Equatable {
            public var illuminant: Int
            public var illuminantData: Chromaticity?
            public init(illuminant: Int, illuminantData: Chromaticity? = nil) {
                self.illuminant = illuminant; self.illuminantData = illuminantData
            }
        }

        /// HueSatMap table `set` (1…3) of the triple-illuminant chart: 6 hue × 2 saturation
        /// divisions × 1 value division, entries (hue shift °, saturation scale, value scale); the
        /// grey column (saturation 0) is the identity, the saturated one differs per set and hue.
        public static func tripleHueSatMap(_ set: Int) -> [Float] {
            let shifts: [[Float]] = [[12, 12, 8, 8, 12, 12], [0, 5, -5, 0, 5, -5], [-10, -6, -10, -6, -10, -6]]
            let sats: [Float] = [1.0, 0.92, 1.1]
            let vals: [Float] = [1.0, 1.0, 0.97]
            let k = min(max(set, 1), 3) - 1
            return (0..<6).flatMap { h in [0, 1, 1] + [shifts[k][h], sats[k], vals[k]] }
        }

        /// Crosstalk of the triple-illuminant camera under illuminant 1 (see `third`).
        public static let tripleCrosstalk1 = Matrix3([
            1.04, -0.03, 0.0,
            0.02, 0.98, 0.01,
            0.0, 0.03, 0.96,
        ])
        /// Crosstalk of the triple-illuminant camera under illuminant 3 (see `third`).
        public static let tripleCrosstalk3 = Matrix3([
            0.93, 0.06, 0.01,
            -0.02, 1.03, -0.02,
            0.01, -0.05, 1.08,
        ])

        public init(linear: Bool = false, forwardMatrix: Bool = false, cameraCalibration: Matrix3? = nil,
                    analogBalance: SIMD3<Double>? = nil, calibrationIlluminants: (Int, Int) = (17, 21)) {
            self.linear = linear; self.forwardMatrix = forwardMatrix; self.cameraCalibration = cameraCalibration
            self.analogBalance = analogBalance; self.calibrationIlluminants = calibrationIlluminants
        }

        /// The classic chart camera (two unrelated matrices, no ForwardMatrix).
        public static let classic = Camera()

        /// A plausible CameraCalibration (small gains and crosstalk).
        public static let sampleCameraCalibration = Matrix3([
            1.0412, 0.0123, -0.0208,
            -0.0087, 0.9836, 0.0141,
            0.0104, -0.0192, 1.0297,
        ])
        /// A plausible AnalogBalance.
        public static let sampleAnalogBalance = SIMD3<Double>(1.12, 1.0, 0.94)

        public static func == (a: Camera, b: Camera) -> Bool {
            a.linear == b.linear && a.coneCamera == b.coneCamera && a.forwardMatrix == b.forwardMatrix && a.cameraCalibration == b.cameraCalibration
                && a.analogBalance == b.analogBalance && a.calibrationIlluminants == b.calibrationIlluminants
                && a.third == b.third && a.hueSatMaps == b.hueSatMaps
        }
    }

    public let cfa: CFAPattern
    public let bitsPerSample: Int
    public let illuminant: Chromaticity
    public let width: Int
    public let height: Int
    public let camera: Camera

    /// A perfect white diffuser's Y in the developed XYZ D50 (camera neutral clipping = 1).
    public static let sceneScale = 0.9
    /// Reflectance of the surround between patches (a neutral).
    public static let surroundReflectance = 0.03

    public static let patchNames: [String] = [
        "dark skin", "light skin", "blue sky", "foliage", "blue flower", "bluish green",
        "orange", "purplish blue", "moderate red", "purple", "yellow green", "orange yellow",
        "blue", "green", "red", "yellow", "magenta", "cyan",
        "white 9.5", "neutral 8", "neutral 6.5", "neutral 5", "neutral 3.5", "black 2",
    ]

    /// BabelColor average ColorChecker patches, 8-bit sRGB (D65).
    public static let referenceSRGB8: [SIMD3<Int>] = [
        SIMD3(115, 82, 68), SIMD3(194, 150, 130), SIMD3(98, 122, 157), SIMD3(87, 108, 67),
        SIMD3(133, 128, 177), SIMD3(103, 189, 170), SIMD3(214, 126, 44), SIMD3(80, 91, 166),
        SIMD3(193, 90, 99), SIMD3(94, 60, 108), SIMD3(157, 188, 64), SIMD3(224, 163, 46),
        SIMD3(56, 61, 150), SIMD3(70, 148, 73), SIMD3(175, 54, 60), SIMD3(231, 199, 31),
        SIMD3(187, 86, 149), SIMD3(8, 133, 161), SIMD3(243, 243, 242), SIMD3(200, 200, 200),
        SIMD3(160, 160, 160), SIMD3(122, 122, 121), SIMD3(85, 85, 85), SIMD3(52, 52, 52),
    ]

    /// XYZ → camera under CIE illuminant A (CalibrationIlluminant1 = 17).
    public static let colorMatrix1 = Matrix3([
        0.8598, -0.2848, -0.0857,
        -0.7807, 1.5541, 0.2454,
        -0.1131, 0.2038, 0.7181,
    ])
    /// XYZ → camera under D65 (CalibrationIlluminant2 = 21).
    public static let colorMatrix2 = Matrix3([
        0.8139, -0.2171, -0.0663,
        -0.8747, 1.6541, 0.2295,
        -0.1925, 0.2008, 0.8093,
    ])

    public init(cfa: CFAPattern, bitsPerSample: Int, illuminant: Chromaticity, width: Int = 600, height: Int = 400,
                camera: Camera = .classic) {
        self.camera = camera
        precondition((8...16).contains(bitsPerSample), "SyntheticChart needs 8…16 bits")
        precondition(width >= 60 && height >= 40, "SyntheticChart needs at least 60×40 pixels")
        self.cfa = cfa; self.bitsPerSample = bitsPerSample; self.illuminant = illuminant
        self.width = width; self.height = height
    }

    /// The colorimetric XYZ D50 of a patch (white patch Y ≈ 0.90).
    public static func colorimetricXYZD50(patch: Int) -> SIMD3<Double> {
        let s = referenceSRGB8[patch]
        let linear = SIMD3(TransferFunction.srgb.decode(Double(s.x) / 255),
                           TransferFunction.srgb.decode(Double(s.y) / 255),
                           TransferFunction.srgb.decode(Double(s.z) / 255))
        return OutputColorSpace.srgb.linearRGBToXYZD50 * linear
    }

    /// The XYZ D50 that developing the chart (DNG colour model, as-shot white balance, no
    /// exposure change) yields for a patch: `sceneScale × colorimetricXYZD50`.
    public func expectedXYZD50(patch: Int) -> SIMD3<Double> {
        Self.sceneScale * Self.colorimetricXYZD50(patch: patch)
    }

    /// The metadata of the synthetic camera (everything but the pixels).
    public var metadata: RawMetadata {
        var m = RawMetadata()
        m.fileFormat = "synthetic"
        m.dngVersion = [1, 6, 0, 0]
        m.uniqueCameraModel = "Darkroom Synthetic Chart"
        m.exif.make = "Darkroom"
        m.exif.model = "Synthetic Chart"
        m.sensorWidth = width
        m.sensorHeight = height
        m.activeArea = PixelRect(x: 0, y: 0, width: width, height: height)
        m.defaultCrop = PixelRect(x: 8, y: 8, width: width - 16, height: height - 16)
        m.samplesPerPixel = 1
        m.cfa = cfa
        m.bitsPerSample = bitsPerSample
        m.blackLevelRepeatRows = 2
        m.blackLevelRepeatColumns = 2
        m.blackLevel = blackLevels.map(Double.init)
        m.whiteLevel = [Double(whiteLevel)]
        m.baselineExposure = 0
        var p = CameraProfile()
        p.name = "Darkroom Synthetic"
        p.calibrationIlluminant1 = camera.calibrationIlluminants.0
        p.calibrationIlluminant2 = camera.calibrationIlluminants.1
        p.colorMatrix1 = Self.colorMatrix1
        p.colorMatrix2 = Self.colorMatrix2
        if camera.linear { linearProfile(&p, &m) }
        m.profile = p
        m.asShotNeutral = nil
        if let model = try? DNGColorModel(metadata: m) {
            let n = model.neutral(white: illuminant)
            m.asShotNeutral = camera.linear ? [n.x, n.y, n.z].map(Self.q) : [n.x, n.y, n.z]
        }
        return m
    }

    /// Rounds to 1/10000, as DNGWriter stores rationals, so the file holds exactly this metadata.
    static func q(_ v: Double) -> Double { (v * 10000).rounded() / 10000 }
    static func q(_ m: Matrix3) -> Matrix3 { Matrix3(m.m.map(q)) }
    /// Rounds to 1/1,000,000, as DNGWriter stores IlluminantData x and y.
    static func micro(_ v: Double) -> Double { (v * 1_000_000).rounded() / 1_000_000 }

    /// The Luther camera's tags (see `Camera`).
    private func linearProfile(_ p: inout CameraProfile, _ m: inout RawMetadata) {
        let ab = camera.analogBalance.map { SIMD3(Self.q($0.x), Self.q($0.y), Self.q($0.z)) }
        let cc = camera.cameraCalibration.map(Self.q)
        var individual = Matrix3.identity
        if let ab { individual = Matrix3.diagonal(ab) }
        if let cc { individual = individual * cc }
        let reference = camera.coneCamera
            ? Matrix3.diagonal(SIMD3(0.9, 1, 1.2)) * ColorMath.bradfordCone
            : (individual.inverse ?? .identity) * Self.colorMatrix2
        if let ab { m.analogBalance = [ab.x, ab.y, ab.z] }
        m.cameraCalibration1 = cc
        m.cameraCalibration2 = cc
        p.colorMatrix1 = Self.q(0.8 * reference)
        p.colorMatrix2 = Self.q(reference)
        if let third = camera.third {
            p.colorMatrix1 = Self.q(0.8 * (Camera.tripleCrosstalk1 * reference))
            p.colorMatrix3 = Self.q(1.1 * (Camera.tripleCrosstalk3 * reference))
            p.calibrationIlluminant3 = third.illuminant
            p.illuminantData3 = third.illuminantData.map { Chromaticity(x: Self.micro($0.x), y: Self.micro($0.y)) }
            m.cameraCalibration3 = cc
            if camera.hueSatMaps {
                p.hueSatMapDims = [6, 2, 1]
                p.hueSatMapData1 = Camera.tripleHueSatMap(1)
                p.hueSatMapData2 = Camera.tripleHueSatMap(2)
                p.hueSatMapData3 = Camera.tripleHueSatMap(3)
            }
        }
        guard camera.forwardMatrix else { return }
        func forward(_ code: Int) -> Matrix3? {
            let white = code == 255 ? p.illuminantData3 : ColorMath.lightSourceWhite(code)
            guard let w = white, let rInv = reference.inverse else { return nil }
            let fm = ColorMath.bradford(from: w, to: ColorMath.d50) * rInv * Matrix3.diagonal(reference * ColorMath.xyToXYZ(w))
            let sums = fm * SIMD3<Double>(1, 1, 1)
            return Self.q(Matrix3.diagonal(ColorMath.xyToXYZ(ColorMath.d50) / sums) * fm)
        }
        p.forwardMatrix1 = forward(camera.calibrationIlluminants.0)
        p.forwardMatrix2 = forward(camera.calibrationIlluminants.1)
        if let third = camera.third { p.forwardMatrix3 = forward(third.illuminant) }
    }

    /// Black level per 2×2 CFA site, row-major: (0,0), (1,0), (0,1), (1,1).
    public var blackLevels: [Int] {
        let k = 1 << max(0, bitsPerSample - 12)
        let base = 1 << (bitsPerSample - 4)
        return [0, 2, -2, 1].map { base + $0 * k }
    }

    public var whiteLevel: Int { (1 << bitsPerSample) - 1 }

    /// Scene XYZ D50 → normalised camera-native values (0 = black, 1 = clipping) under `illuminant`.
    public var xyzD50ToCamera: Matrix3 {
        guard let model = try? DNGColorModel(metadata: metadata) else { return .identity }
        let pcsToCamera = model.xyzToCamera(white: illuminant) * ColorMath.bradford(from: ColorMath.d50, to: illuminant)
        let scale = (pcsToCamera * ColorMath.xyToXYZ(ColorMath.d50)).max()
        return (1 / scale) * pcsToCamera
    }

    /// The exact (unquantised) normalised camera-native RGB of a patch.
    public func cameraValues(patch: Int) -> SIMD3<Double> { xyzD50ToCamera * expectedXYZD50(patch: patch) }

    /// Gap between patches and around the chart, in pixels.
    var gap: Int { max(4, min(width / 6, height / 4) / 10) }

    /// Each patch's rectangle in the developed image (active area, uncropped, orientation 1),
    /// row by row from top-left. Flat inside; sample an inset region to avoid demosaic bleed.
    public var patchRects: [PixelRect] {
        let g = gap
        let pitchX = (width - g) / 6, pitchY = (height - g) / 4
        var rects: [PixelRect] = []
        for r in 0..<4 {
            for c in 0..<6 {
                rects.append(PixelRect(x: g + c * pitchX, y: g + r * pitchY, width: pitchX - g, height: pitchY - g))
            }
        }
        return rects
    }

    /// The mosaic plus full metadata.
    public func makeRawImage() -> RawImage {
        let m = metadata
        let toCamera = xyzD50ToCamera
        let blacks = blackLevels.map(Double.init)
        let white = Double(whiteLevel)
        func encode(_ rgb: SIMD3<Double>) -> [UInt16] {
            // One value per (site, channel): index site * 3 + channel.
            var out: [UInt16] = []
            for site in 0..<4 {
                for ch in 0..<3 {
                    let v = blacks[site] + rgb[ch] * (white - blacks[site])
                    out.append(UInt16(min(max(v.rounded(), 0), white)))
                }
            }
            return out
        }
        let surround = encode(toCamera * (Self.sceneScale * Self.surroundReflectance * ColorMath.xyToXYZ(ColorMath.d50)))
        let patches = (0..<24).map { encode(cameraValues(patch: $0)) }
        // Which code table each pixel uses: -1 surround, else patch index.
        var index = [Int8](repeating: -1, count: width * height)
        for (i, r) in patchRects.enumerated() {
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { index[y * width + x] = Int8(i) } }
        }
        var pixels = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let site = (y & 1) << 1 | (x & 1)
                let ch = Int(cfa.color(x: x, y: y).rawValue)
                let p = Int(index[y * width + x])
                pixels[y * width + x] = (p < 0 ? surround : patches[p])[site * 3 + ch]
            }
        }
        return RawImage(width: width, height: height, samplesPerPixel: 1, pixels: pixels, metadata: m)
    }
}
