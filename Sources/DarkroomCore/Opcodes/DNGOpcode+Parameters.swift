// Parameter records of the DNG opcodes (DNG 1.7 §7). Field names follow the specification.

extension DNGOpcode {
    /// WarpRectilinear (id 1): per plane the radial (kr0…kr3, in r⁰,r²,r⁴,r⁶) and tangential
    /// (kt0, kt1) coefficients of the source-from-destination mapping, and the optical centre
    /// (cx, cy) in relative image coordinates. `coefficients.count` is 1 (all planes) or the plane count.
    public struct WarpRectilinear: Sendable, Equatable {
        public struct Plane: Sendable, Equatable {
            public var kr: [Double]   // 4 values
            public var kt: [Double]   // 2 values
            public init(kr: [Double], kt: [Double]) { self.kr = kr; self.kt = kt }
        }
        public var planes: [Plane]
        public var cx: Double, cy: Double
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(planes: [Plane], cx: Double, cy: Double, flags: UInt32 = 0) {
            self.planes = planes; self.cx = cx; self.cy = cy; self.flags = flags
        }
    }

    /// WarpFisheye (id 2): per plane kr0…kr3 of r_src = kr0·θ + kr1·θ³ + kr2·θ⁵ + kr3·θ⁷, θ = atan(r).
    public struct WarpFisheye: Sendable, Equatable {
        public var planes: [[Double]]   // 4 values each
        public var cx: Double, cy: Double
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(planes: [[Double]], cx: Double, cy: Double, flags: UInt32 = 0) {
            self.planes = planes; self.cx = cx; self.cy = cy; self.flags = flags
        }
    }

    /// FixVignetteRadial (id 3): gain 1 + k0·r² + k1·r⁴ + k2·r⁶ + k3·r⁸ + k4·r¹⁰ around (cx, cy).
    public struct FixVignetteRadial: Sendable, Equatable {
        public var k: [Double]          // 5 values
        public var cx: Double, cy: Double
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(k: [Double], cx: Double, cy: Double, flags: UInt32 = 0) {
            self.k = k; self.cx = cx; self.cy = cy; self.flags = flags
        }
    }

    /// FixBadPixelsConstant (id 4): pixels equal to `constant` are bad; `bayerPhase` gives the
    /// colour of the top-left pixel (the specification: 0 red, 1 green in a red row, 2 green in a
    /// blue row, 3 blue; the DNG SDK reads 0 and 3 as green — see `BadPixelRepair`).
    public struct FixBadPixelsConstant: Sendable, Equatable {
        public var constant: UInt32
        public var bayerPhase: UInt32
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(constant: UInt32, bayerPhase: UInt32, flags: UInt32 = 0) {
            self.constant = constant; self.bayerPhase = bayerPhase; self.flags = flags
        }
    }

    /// FixBadPixelsList (id 5): listed bad points (row, column) and rectangles (top, left, bottom, right).
    public struct FixBadPixelsList: Sendable, Equatable {
        public struct Point: Sendable, Equatable {
            public var row: UInt32, column: UInt32
            public init(row: UInt32, column: UInt32) { self.row = row; self.column = column }
        }
        public struct Rect: Sendable, Equatable {
            public var top: UInt32, left: UInt32, bottom: UInt32, right: UInt32
            public init(top: UInt32, left: UInt32, bottom: UInt32, right: UInt32) {
                self.top = top; self.left = left; self.bottom = bottom; self.right = right
            }
        }
        public var bayerPhase: UInt32
        public var points: [Point]
        public var rects: [Rect]
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(bayerPhase: UInt32, points: [Point], rects: [Rect], flags: UInt32 = 0) {
            self.bayerPhase = bayerPhase; self.points = points; self.rects = rects; self.flags = flags
        }
    }

    /// TrimBounds (id 6): the image becomes rows top..<bottom, columns left..<right.
    public struct TrimBounds: Sendable, Equatable {
        public var top: UInt32, left: UInt32, bottom: UInt32, right: UInt32
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(top: UInt32, left: UInt32, bottom: UInt32, right: UInt32, flags: UInt32 = 0) {
            self.top = top; self.left = left; self.bottom = bottom; self.right = right; self.flags = flags
        }
    }

    /// MapTable (id 7): 16-bit values in `area` are mapped through `table`; inputs past the
    /// table's end take its last entry (the specification; the DNG SDK 1.7.1 reads the entry
    /// just past the table instead, which it never sets).
    public struct MapTable: Sendable, Equatable {
        public var area: OpcodeArea
        public var table: [UInt16]      // 1…65536 entries
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(area: OpcodeArea, table: [UInt16], flags: UInt32 = 0) {
            self.area = area; self.table = table; self.flags = flags
        }
    }

    /// MapPolynomial (id 8): normalised values x in `area` become Σ coefficients[i]·xⁱ (degree ≤ 8).
    public struct MapPolynomial: Sendable, Equatable {
        public var area: OpcodeArea
        public var coefficients: [Double]   // degree + 1 values
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(area: OpcodeArea, coefficients: [Double], flags: UInt32 = 0) {
            self.area = area; self.coefficients = coefficients; self.flags = flags
        }
    }

    /// GainMap (id 9): values in `area` are multiplied by a gain bilinearly interpolated from a
    /// `mapPointsV × mapPointsH × mapPlanes` grid whose first point sits at (mapOriginV,
    /// mapOriginH) and whose points are (mapSpacingV, mapSpacingH) apart, all in relative image
    /// coordinates. Gains are stored row-major, planes interleaved.
    public struct GainMap: Sendable, Equatable {
        public var area: OpcodeArea
        public var mapPointsV: UInt32, mapPointsH: UInt32
        public var mapSpacingV: Double, mapSpacingH: Double
        public var mapOriginV: Double, mapOriginH: Double
        public var mapPlanes: UInt32
        public var gains: [Float]
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(area: OpcodeArea, mapPointsV: UInt32, mapPointsH: UInt32, mapSpacingV: Double, mapSpacingH: Double,
                    mapOriginV: Double, mapOriginH: Double, mapPlanes: UInt32, gains: [Float], flags: UInt32 = 0) {
            self.area = area; self.mapPointsV = mapPointsV; self.mapPointsH = mapPointsH
            self.mapSpacingV = mapSpacingV; self.mapSpacingH = mapSpacingH
            self.mapOriginV = mapOriginV; self.mapOriginH = mapOriginH
            self.mapPlanes = mapPlanes; self.gains = gains; self.flags = flags
        }
        /// The gain at map point (row v, column h) of map plane `p`.
        @inline(__always)
        func gain(_ v: Int, _ h: Int, _ p: Int) -> Float {
            gains[(v * Int(mapPointsH) + h) * Int(mapPlanes) + p]
        }
    }

    /// DeltaPerRow/DeltaPerColumn (ids 10, 11: an offset added, in codes of the stage image's data
    /// type — 0…65535 for every integer DNG, as the DNG SDK 1.7.1 reads it; 0…1 for floating-point
    /// images) and ScalePerRow/ScalePerColumn (ids 12, 13: a factor applied): one value per selected
    /// row (column) of `area`, `ceil(areaHeight / rowPitch)` (`ceil(areaWidth / colPitch)`) of them.
    public struct PerLineTable: Sendable, Equatable {
        public var area: OpcodeArea
        public var values: [Float]
        public var version: UInt32 = DNGOpcode.version1_3
        public var flags: UInt32 = 0
        public init(area: OpcodeArea, values: [Float], flags: UInt32 = 0) {
            self.area = area; self.values = values; self.flags = flags
        }
    }

    /// WarpRectilinear2 (id 14, DNG 1.6): per plane a radial polynomial in r (kr0…kr14, all
    /// powers), tangential kt0, kt1, and the valid radius range the radius is clamped to;
    /// `reciprocalRadial` ≠ 0 uses 1/polynomial as the radial ratio.
    public struct WarpRectilinear2: Sendable, Equatable {
        public struct Plane: Sendable, Equatable {
            public var kr: [Double]     // 15 values
            public var kt: [Double]     // 2 values
            public var minValidRadius: Double, maxValidRadius: Double
            public init(kr: [Double], kt: [Double], minValidRadius: Double = 0, maxValidRadius: Double = 1) {
                self.kr = kr; self.kt = kt; self.minValidRadius = minValidRadius; self.maxValidRadius = maxValidRadius
            }
        }
        public var planes: [Plane]
        public var cx: Double, cy: Double
        public var reciprocalRadial: UInt32
        public var version: UInt32 = DNGOpcode.version1_6
        public var flags: UInt32 = 0
        public init(planes: [Plane], cx: Double, cy: Double, reciprocalRadial: UInt32 = 0, flags: UInt32 = 0) {
            self.planes = planes; self.cx = cx; self.cy = cy; self.reciprocalRadial = reciprocalRadial; self.flags = flags
        }
    }
}
