import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO
import Foundation
import Testing

// MARK: - A tiny independent PNG writer (filter None, stored deflate) for any colour type / depth.

private func crc(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
    }
    return ~c
}
private func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
private func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let td = Array(type.utf8) + data
    return be32(data.count) + td + be32(Int(crc(td)))
}
private func stored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var pos = 0
    repeat {
        let n = min(65535, data.count - pos)
        out += [pos + n == data.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        out += data[pos..<(pos + n)]
        pos += n
    } while pos < data.count
    var a: UInt32 = 1, b: UInt32 = 0
    for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
    return out + be32(Int(b << 16 | a))
}

/// `samples`: one value per channel per pixel (already within the bit depth); packed MSB first.
func makeTestPNG(width: Int, height: Int, colorType: UInt8, depth: Int, samples: [Int],
                 palette: [UInt8] = [], trns: [UInt8] = []) -> [UInt8] {
    let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(colorType)] ?? 1
    var raw: [UInt8] = []
    for y in 0..<height {
        raw.append(0)
        let row = samples[(y * width * channels)..<((y + 1) * width * channels)]
        if depth == 16 {
            for v in row { raw += [UInt8(v >> 8), UInt8(v & 0xFF)] }
        } else if depth == 8 {
            raw += row.map { UInt8($0) }
        } else {
            var bits: [UInt8] = Array(repeating: 0, count: (width * depth + 7) / 8)
            for (i, v) in row.enumerated() { bits[i * depth / 8] |= UInt8(v << (8 - depth - (i * depth) % 8)) }
            raw += bits
        }
    }
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    png += pngChunk("IHDR", be32(width) + be32(height) + [UInt8(depth), colorType, 0, 0, 0])
    if !palette.isEmpty { png += pngChunk("PLTE", palette) }
    if !trns.isEmpty { png += pngChunk("tRNS", trns) }
    return png + pngChunk("IDAT", stored(raw)) + pngChunk("IEND", [])
}

private func tempFile(_ bytes: [UInt8], _ name: String) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-matte-\(UUID().uuidString)-\(name)")
    try Data(bytes).write(to: url)
    return url.path
}

@Suite("Matte: PNG variants and supplied mattes")
struct MatteSuppliedTests {
    @Test(arguments: [1, 2, 4, 8])
    func greyLowBitDepthsScaleTo8Bit(depth: Int) throws {
        let maxV = (1 << depth) - 1
        let w = 11, h = 3
        let samples = (0..<(w * h)).map { ($0 * 7) % (maxV + 1) }
        let img = try PNGReader.read(makeTestPNG(width: w, height: h, colorType: 0, depth: depth, samples: samples))
        #expect(img.channels == 1 && img.bitsPerSample == 8)
        #expect(img.pixels == samples.map { UInt8($0 * 255 / maxV) })
    }

    @Test(arguments: [(UInt8(0), 1), (2, 3), (4, 2), (6, 4)])
    func sixteenBitKeepsExactSamples(colorType: UInt8, channels: Int) throws {
        let w = 5, h = 4
        let samples = (0..<(w * h * channels)).map { ($0 * 4099 + 17) & 0xFFFF }
        let img = try PNGReader.read(makeTestPNG(width: w, height: h, colorType: colorType, depth: 16, samples: samples))
        #expect(img.channels == channels && img.bitsPerSample == 16)
        #expect(img.samples16 == samples.map { UInt16($0) })
        #expect(img.pixels == samples.map { UInt8((UInt32($0) * 255 + 32767) / 65535) })
    }

    @Test func greyAlphaEightBit() throws {
        let samples = [10, 255, 20, 128, 30, 0, 40, 64]
        let img = try PNGReader.read(makeTestPNG(width: 2, height: 2, colorType: 4, depth: 8, samples: samples))
        #expect(img.channels == 2 && img.pixels == samples.map { UInt8($0) })
    }

    @Test func paletteExpandsToRGBAndRGBA() throws {
        let palette: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 8, 7]
        let idx = [0, 1, 2, 3, 3, 2, 1, 0, 1]
        let rgb = try PNGReader.read(makeTestPNG(width: 3, height: 3, colorType: 3, depth: 2, samples: idx, palette: palette))
        #expect(rgb.channels == 3)
        let expectedRGB: [UInt8] = idx.flatMap { (i: Int) -> [UInt8] in Array(palette[(3 * i)..<(3 * i + 3)]) }
        #expect(rgb.pixels == expectedRGB)
        let rgba = try PNGReader.read(makeTestPNG(width: 3, height: 3, colorType: 3, depth: 4, samples: idx,
                                                  palette: palette, trns: [0, 128]))
        #expect(rgba.channels == 4)
        let alpha: [UInt8] = [0, 128, 255, 255]
        var expected: [UInt8] = []
        for i in idx { expected += Array(palette[(3 * i)..<(3 * i + 3)]); expected.append(alpha[i]) }
        #expect(rgba.pixels == expected)
        // Index beyond the palette is a clear error.
        #expect(throws: PNGError.invalid(file: nil, reason: "palette index 3 outside the 3-entry PLTE")) {
            try PNGReader.read(makeTestPNG(width: 3, height: 3, colorType: 3, depth: 8, samples: idx, palette: Array(palette.prefix(9))))
        }
    }

    /// Exact 2× reduction: each plane pixel is the rounded mean of its 2×2 block.
    @Test func suppliedGreyMatteExactTwoTimesDownscale() throws {
        let w = 10, h = 6
        let samples = (0..<(w * h)).map { ($0 * 53 + ($0 / w) * 31) % 256 }
        let path = try tempFile(makeTestPNG(width: w, height: h, colorType: 0, depth: 8, samples: samples), "grey.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plane = try SuppliedMatte.load(path: path, kind: .hair, width: w, height: h)
        #expect(plane.kind == .hair && plane.width == 5 && plane.height == 3)
        for y in 0..<3 { for x in 0..<5 {
            let s = samples[2 * y * w + 2 * x] + samples[2 * y * w + 2 * x + 1]
                + samples[(2 * y + 1) * w + 2 * x] + samples[(2 * y + 1) * w + 2 * x + 1]
            #expect(Int(plane.pixels[y * 5 + x]) == (s + 2) / 4, "(\(x), \(y))")
        } }
    }

    /// An RGB matte at the output's full size (4000 × 3000 class scaled down to 40 × 30): luma, area-averaged.
    @Test func suppliedRGBMatteUsesLumaAndOddOutputSize() throws {
        let w = 42, h = 30
        var samples: [Int] = []
        for y in 0..<h { for x in 0..<w { samples += x < 21 ? [255, 255, 255] : (y < 15 ? [255, 0, 0] : [0, 0, 0]) } }
        let path = try tempFile(makeTestPNG(width: w, height: h, colorType: 2, depth: 8, samples: samples), "rgb.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Output 41 × 29 → plane 21 × 15; the matte (42 × 30) is within the 2 % aspect tolerance.
        let plane = try SuppliedMatte.load(path: path, kind: .skin, width: 41, height: 29)
        #expect(plane.width == 21 && plane.height == 15)
        #expect(plane.pixels[0] == 255)                 // white
        #expect(plane.pixels[20] == 54)                 // red: 0.2126 · 255 = 54.2
        #expect(plane.pixels[14 * 21 + 20] == 0)        // black
    }

    @Test func suppliedMatteUpscalesBilinearly() throws {
        let path = try tempFile(makeTestPNG(width: 2, height: 2, colorType: 0, depth: 16, samples: [0, 65535, 0, 65535]), "up.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plane = try SuppliedMatte.load(path: path, kind: .sky, width: 8, height: 8)
        #expect(plane.width == 4 && plane.height == 4)
        // Target centres map to source x −0.25, 0.25, 0.75, 1.25 → 0, ¼, ¾, 1 of full scale (edges clamp).
        #expect(Array(plane.pixels[0..<4]) == [0, 64, 191, 255])
        #expect(plane.pixels[12..<16] == plane.pixels[0..<4])
    }

    @Test func suppliedMatteErrorsNameTheFile() throws {
        let path = try tempFile(makeTestPNG(width: 4, height: 4, colorType: 0, depth: 8, samples: Array(repeating: 1, count: 16)), "square.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try SuppliedMatte.load(path: path, kind: .skin, width: 300, height: 200)
            Issue.record("expected an aspect error")
        } catch {
            #expect(error == .aspectMismatch(file: path, matteWidth: 4, matteHeight: 4, outputWidth: 300, outputHeight: 200))
            #expect(error.description.hasPrefix(path + ": ") && !error.description.contains("\n"))
        }
        do {
            _ = try SuppliedMatte.load(path: "/nonexistent/skin.png", kind: .skin, width: 4, height: 4)
            Issue.record("expected a read error")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/skin.png: cannot use as a matte: "))
            #expect(!error.description.contains("\n"))
        }
        let notPNG = try tempFile(Array("hello".utf8), "x.png")
        defer { try? FileManager.default.removeItem(atPath: notPNG) }
        #expect(throws: MatteError.unreadable(file: notPNG, reason: "not a PNG (bad signature)")) {
            try SuppliedMatte.load(path: notPNG, kind: .teeth, width: 4, height: 4)
        }
    }
}
