import DarkroomCore
/// Encodes samples as one lossless JPEG stream (ITU T.81 process 14: SOF3, Huffman coding), the
/// payload of one strip or tile of a Compression 7 DNG.
///
/// The samples are coded in raster order, `components` interleaved samples per frame column
/// (T.81 A.2.3 with H = V = 1): a DNG block of W×H samples may be coded as W columns × 1
/// component or W/2 columns × 2 components, which predicts each sample from its CFA neighbour of
/// the same colour. One Huffman table (built from the stream's own difference categories, T.81
/// K.2 with the K.3 length limit of 16) serves every component, or one per component.
///
/// Prediction (T.81 H.1.2.1): the first line of the scan and of each restart interval uses Ra,
/// every other line the selected predictor, the first sample of every other line Rb, and the first
/// sample of the scan and of each restart interval 2^(P − Pt − 1). Differences are taken modulo
/// 2^16; category 16 stands for 32768 alone (T.81 H.1.2.2).
package struct LosslessJPEGEncoder {
    /// Frame columns (X) and lines (Y), and interleaved components (Nf = Ns, 1…4).
    package var columns: Int, lines: Int, components: Int
    /// Sample precision P, 2…16 bits.
    package var precision: Int
    /// Predictor selection value 1…7 (Ss).
    package var predictor = 1
    /// Point transform Pt (Al): samples are coded shifted right by it.
    package var pointTransform = 0
    /// Restart interval in MCUs (DRI), a multiple of `columns`; 0 for none.
    package var restartInterval = 0
    /// One Huffman table per component (Th = Td = component index) instead of one for all.
    package var tablePerComponent = false

    package init(columns: Int, lines: Int, components: Int, precision: Int) {
        self.columns = columns
        self.lines = lines
        self.components = components
        self.precision = precision
    }

    /// The stream: SOI, DHT, SOF3, [DRI], SOS, entropy-coded data, EOI. `samples` holds
    /// lines × columns × components values below 2^P.
    package func encode(_ samples: UnsafeBufferPointer<UInt16>) -> [UInt8] {
        let nc = components, rowSamples = columns * nc
        precondition(samples.count >= lines * rowSamples)
        // Differences, row by row (the predictor reads reconstructed = original samples).
        var diffs = [Int32](repeating: 0, count: lines * rowSamples)
        let initial = Int32(1) << Int32(precision - pointTransform - 1)
        if predictor == 1 && pointTransform == 0 && restartInterval == 0 {
            // The DNG case (predictor 1, no point transform, no restarts): Ra everywhere but
            // at the start of a line (2^(P−1) on the first, Rb on the others).
            diffs.withUnsafeMutableBufferPointer { d in
                for y in 0..<lines {
                    let row = y * rowSamples
                    for i in row..<(row + rowSamples) {
                        let pred = i - row >= nc ? Int32(samples[i - nc]) : y == 0 ? initial : Int32(samples[i - rowSamples])
                        d[i] = Self.wrap(Int32(samples[i]) - pred)
                    }
                }
            }
        } else {
            for y in 0..<lines {
                let restartRow = restartInterval > 0 && (y * columns) % restartInterval == 0
                for x in 0..<columns {
                    for c in 0..<nc {
                        let i = y * rowSamples + x * nc + c
                        let px = Int32(samples[i] >> UInt16(pointTransform))
                        func s(_ j: Int) -> Int32 { Int32(samples[j] >> UInt16(pointTransform)) }
                        let pred: Int32
                        if y == 0 || restartRow {
                            pred = x == 0 ? initial : s(i - nc)
                        } else if x == 0 {
                            pred = s(i - rowSamples)
                        } else {
                            let ra = s(i - nc), rb = s(i - rowSamples), rc = s(i - rowSamples - nc)
                            pred = LosslessJPEGDecoder.predict(predictor, ra: ra, rb: rb, rc: rc)  // T.81 Table H.1
                        }
                        diffs[i] = Self.wrap(px - pred)
                    }
                }
            }
        }
        let tableCount = tablePerComponent ? nc : 1
        var histograms = [[Int]](repeating: [Int](repeating: 0, count: 17), count: tableCount)
        if tableCount == 1 {
            var h = [Int](repeating: 0, count: 17)
            diffs.withUnsafeBufferPointer { for d in $0 { h[Self.category(d)] += 1 } }
            histograms[0] = h
        } else {
            for (i, d) in diffs.enumerated() { histograms[i % nc][Self.category(d)] += 1 }
        }
        let lengths = histograms.map { Self.codeLengths($0) }
        let tables = lengths.map { Self.canonical($0) }

        var out: [UInt8] = [0xFF, 0xD8]
        // DHT: class 0, tables 0….
        out += [0xFF, 0xC4]
        Self.append16(&out, 2 + tables.reduce(0) { $0 + 17 + $1.symbols.count })
        for (t, table) in tables.enumerated() {
            out.append(UInt8(t))
            out += table.bits.map { UInt8($0) }
            out += table.symbols.map { UInt8($0) }
        }
        // SOF3.
        out += [0xFF, 0xC3]
        Self.append16(&out, 8 + 3 * nc)
        out.append(UInt8(precision))
        Self.append16(&out, lines); Self.append16(&out, columns)
        out.append(UInt8(nc))
        for c in 0..<nc { out += [UInt8(c + 1), 0x11, 0] }
        if restartInterval > 0 {
            out += [0xFF, 0xDD, 0, 4]
            Self.append16(&out, restartInterval)
        }
        // SOS.
        out += [0xFF, 0xDA]
        Self.append16(&out, 6 + 2 * nc)
        out.append(UInt8(nc))
        for c in 0..<nc { out += [UInt8(c + 1), UInt8(tablePerComponent ? c << 4 : 0)] }
        out += [UInt8(predictor), 0, UInt8(pointTransform)]

        var writer = BitWriter()
        writer.bytes.reserveCapacity(diffs.count * 3 / 2)
        var restart = 0
        for y in 0..<lines {
            if y > 0, restartInterval > 0, (y * columns) % restartInterval == 0 {
                writer.flush()
                writer.bytes += [0xFF, UInt8(0xD0 + restart % 8)]
                restart += 1
            }
            diffs.withUnsafeBufferPointer { all in
                for i in (y * rowSamples)..<((y + 1) * rowSamples) {
                    let d = all[i], ssss = Self.category(d), t = tablePerComponent ? i % nc : 0
                    // The Huffman code then, for 0 < SSSS < 16, the SSSS low bits of d (d − 1 if negative).
                    let code = UInt64(tables[t].codes[ssss]), length = lengths[t][ssss]
                    if ssss > 0 && ssss < 16 {
                        let v = UInt64(UInt32(truncatingIfNeeded: d > 0 ? d : d - 1) & (1 << UInt32(ssss) - 1))
                        writer.put(code << UInt64(ssss) | v, count: length + ssss)
                    } else {
                        writer.put(code, count: length)
                    }
                }
            }
        }
        writer.flush()
        out += writer.bytes
        out += [0xFF, 0xD9]
        return out
    }

    /// A difference taken modulo 2^16, as −32768 … 32767.
    @inline(__always) static func wrap(_ v: Int32) -> Int32 {
        let d = v & 0xFFFF
        return d >= 0x8000 ? d - 0x10000 : d
    }

    /// SSSS of a difference in −32768 … 32767 (−32768 is 32768 modulo 2^16: category 16).
    package static func category(_ d: Int32) -> Int {
        if d == -32768 { return 16 }
        let m = d < 0 ? -d : d
        return m == 0 ? 0 : 32 - m.leadingZeroBitCount
    }

    package static func append16(_ out: inout [UInt8], _ v: Int) {
        out += [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    /// Huffman code lengths (0 for unused symbols) of the 17 categories, at most 16 bits, never
    /// an all-ones code: T.81 K.2 (a reserved symbol of frequency 1 takes the all-ones code)
    /// and K.3 (lengths over 16 moved up the tree).
    package static func codeLengths(_ histogram: [Int]) -> [Int] {
        var freq = histogram + [1]          // index 17: reserved
        let n = freq.count
        var codesize = [Int](repeating: 0, count: n)
        var others = [Int](repeating: -1, count: n)
        if freq[0..<17].allSatisfy({ $0 == 0 }) { freq[0] = 1 }
        while true {
            // v1: least frequency (ties: larger index); v2: next least.
            var v1 = -1, v2 = -1
            for i in 0..<n where freq[i] > 0 {
                if v1 < 0 || freq[i] <= freq[v1] { v1 = i }
            }
            for i in 0..<n where freq[i] > 0 && i != v1 {
                if v2 < 0 || freq[i] <= freq[v2] { v2 = i }
            }
            if v2 < 0 { break }
            freq[v1] += freq[v2]; freq[v2] = 0
            var a = v1
            codesize[a] += 1
            while others[a] >= 0 { a = others[a]; codesize[a] += 1 }
            others[a] = v2
            var b = v2
            codesize[b] += 1
            while others[b] >= 0 { b = others[b]; codesize[b] += 1 }
        }
        // K.3: count codes per length, move lengths above 16 up.
        var bits = [Int](repeating: 0, count: 40)
        for s in codesize where s > 0 { bits[s] += 1 }
        var i = 39
        while i > 16 {
            while bits[i] > 0 {
                var j = i - 2
                while bits[j] == 0 { j -= 1 }
                bits[i] -= 2; bits[i - 1] += 1; bits[j + 1] += 2; bits[j] -= 1
            }
            i -= 1
        }
        // Remove the reserved code (the longest).
        i = 16
        while bits[i] == 0 { i -= 1 }
        bits[i] -= 1
        // Reassign lengths: most frequent symbols get the shortest codes.
        let order = (0..<17).filter { histogram[$0] > 0 || (histogram.allSatisfy { $0 == 0 } && $0 == 0) }
            .sorted { (histogram[$0], -$0) > (histogram[$1], -$1) }
        var lengths = [Int](repeating: 0, count: 17)
        var k = 0
        for len in 1...16 {
            for _ in 0..<bits[len] where k < order.count { lengths[order[k]] = len; k += 1 }
        }
        return lengths
    }

    /// Canonical codes (T.81 C.2) for `lengths`, the DHT counts per length and symbols in order.
    package static func canonical(_ lengths: [Int]) -> (codes: [UInt32], bits: [Int], symbols: [Int]) {
        var bits = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []
        for len in 1...16 {
            for s in 0..<lengths.count where lengths[s] == len { bits[len - 1] += 1; symbols.append(s) }
        }
        var codes = [UInt32](repeating: 0, count: lengths.count)
        var code: UInt32 = 0, k = 0
        for len in 1...16 {
            for _ in 0..<bits[len - 1] { codes[symbols[k]] = code; code += 1; k += 1 }
            code <<= 1
        }
        return (codes, bits, symbols)
    }

    /// MSB-first bits with a zero byte stuffed after every 0xFF; padded with 1-bits.
    package struct BitWriter {
        var bytes: [UInt8] = []
        var acc: UInt64 = 0
        var count = 0

        /// Appends the low `n` (≤ 32) bits of `value`, most significant first.
        mutating func put(_ value: UInt32, count n: Int) { put(UInt64(value), count: n) }

        @inline(__always) mutating func put(_ value: UInt64, count n: Int) {
            guard n > 0 else { return }
            acc = acc << UInt64(n) | value
            count += n
            while count >= 8 {
                count -= 8
                let b = UInt8(truncatingIfNeeded: acc >> UInt64(count))
                bytes.append(b)
                if b == 0xFF { bytes.append(0) }
            }
            acc &= (1 << UInt64(count)) - 1
        }

        mutating func flush() {
            if count > 0 { put(UInt64((1 << (8 - count)) - 1), count: 8 - count) }
        }
    }
}
