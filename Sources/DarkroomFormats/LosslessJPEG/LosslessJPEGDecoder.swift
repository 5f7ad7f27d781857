import DarkroomCore
import Dispatch
import Foundation

/// Decodes lossless-JPEG DNG raw data (Compression 7; ITU T.81 process 14, "LJ92") from a memory
/// map of the file straight into the output buffer, one strip or tile — one independent JPEG
/// stream — per task, spread over worker threads.
///
/// Scope (`unsupportedReason`): PlanarConfiguration 1, 1 (CFA) or 3 (LinearRaw) samples per
/// pixel, unsigned samples of at most 16 bits, strips or tiles, with or without a
/// LinearizationTable. Inside
/// each stream: SOF3 with 1…4 components sampled 1×1, one scan holding every component,
/// predictors 1…7, point transform Pt, Huffman tables per component (DHT anywhere before SOS),
/// restart intervals (DRI/RSTn) that hold whole lines, precision P 2…16.
///
/// Block layout (DNG 1.7 "Compression" 7): the stream's samples, in raster order with the
/// components of a column interleaved, fill the block's samples in raster order. A block W
/// pixels wide is usually coded as W/2 columns × 2 components or W columns × SamplesPerPixel
/// components; any frame with exactly as many samples as the block is accepted. Tiles are
/// coded full size; the last strip has its own rows (or RowsPerStrip rows). Samples outside the
/// image or the requested region are decoded and dropped.
///
/// Decoding (T.81 H.2): each Huffman-coded difference category SSSS is followed by SSSS extra
/// bits (category 16 is 32768 with none, H.1.2.2); differences are added modulo 2^16 to the
/// prediction of H.1.2.1 (Ra on the first line of the scan and of each restart interval, Rb at
/// the start of every other line, 2^(P − Pt − 1) at the start of the scan and of each restart
/// interval); the output is multiplied by 2^Pt, then mapped through the LinearizationTable when
/// there is one (values past its end take its last entry), as LibRaw does while decoding, so
/// OpcodeList1 sees linearised values on both paths.
///
/// Errors: everything about the streams' headers and their fit with the tags is checked for
/// every block before the output is allocated (`Failure.invalidLayout`; LibRaw may still read
/// such a file; SOF1 DCT streams are `.unsupported`). A frame of another JPEG process, a frame
/// too small for its block's rows in the image, more samples than the bytes can hold (every code
/// is at least one bit), or a damaged entropy-coded segment — a code no table defines, a sample
/// above 2^P − 1, a missing or wrong restart marker, data that ends early — is
/// `Failure.invalidData`. The output never depends on the thread count, and no partial image is
/// returned.
package enum LosslessJPEGDecoder {
    /// Why decoding failed, by who should see it next.
    package enum Failure: Error {
        /// Outside the scope or inconsistent with the tags: LibRaw's reader may still read it.
        case invalidLayout(DecodeError)
        /// A damaged stream: refused (LibRaw would return a partial image or fail as well).
        case invalidData(DecodeError)

        var error: DecodeError {
            switch self {
            case .invalidLayout(let e), .invalidData(let e): return e
            }
        }
    }

    /// Why `layout` is outside this decoder's scope; nil when it is inside.
    package static func unsupportedReason(_ layout: DNGRawDataLayout) -> String? {
        if layout.compression != 7 { return "Compression \(layout.compression)" }
        if layout.planarConfiguration != 1 { return "PlanarConfiguration \(layout.planarConfiguration)" }
        if layout.samplesPerPixel != 1 && layout.samplesPerPixel != 3 { return "\(layout.samplesPerPixel) samples per pixel" }
        if !layout.bitsPerSample.allSatisfy({ (1...16).contains($0) }) { return "BitsPerSample \(layout.bitsPerSample)" }
        if !layout.sampleFormat.allSatisfy({ $0 == 1 }) { return "SampleFormat \(layout.sampleFormat)" }
        if layout.hasLinearizationTable && (layout.linearizationTable ?? []).isEmpty { return "unreadable LinearizationTable" }
        return nil
    }

    /// The stored samples of `region` (stored-image coordinates), row-major with the samples of a
    /// pixel interleaved. `threads` 0 means one worker per active core.
    package static func decode(_ layout: DNGRawDataLayout, region: PixelRect, threads: Int, path: String) throws(Failure) -> [UInt16] {
        if let reason = unsupportedReason(layout) {
            throw .invalidLayout(.unsupported(path: path, reason: "lossless JPEG DNG with \(reason)"))
        }
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw .invalidLayout(.unreadable(path: path, reason: error.reason)) }
        let pixels = try file.withBytes { bytes throws(Failure) in
            let grid: DNGBlockGrid
            do throws(DecodeError) { grid = try DNGBlockGrid(layout, path: path) } catch { throw .invalidLayout(error) }
            guard !region.isEmpty, PixelRect(x: 0, y: 0, width: layout.width, height: layout.height).contains(region) else {
                throw .invalidLayout(.corrupt(path: path, detail: "region \(region) lies outside the \(layout.width)x\(layout.height) image"))
            }
            guard let base = bytes.baseAddress else { throw .invalidLayout(.truncated(path: path, detail: "file is empty")) }
            // Every header of every block the region needs, before allocating.
            let spp = layout.samplesPerPixel
            var streams: [Stream] = []
            var total = 0
            for i in 0..<grid.count {
                let rect = grid.rect(i)
                guard rect.x < region.maxX, rect.maxX > region.x, rect.y < region.maxY, rect.maxY > region.y else { continue }
                let offset = grid.offsets[i], count = grid.byteCounts[i]
                let (end, overflow) = offset.addingReportingOverflow(count)
                guard offset >= 0, count >= 0, !overflow, end <= bytes.count else {
                    throw .invalidLayout(.truncated(path: path, detail: "\(grid.kind.lowercased()) \(i): \(count) bytes at offset \(offset); the file has \(bytes.count)"))
                }
                // Blocks share no bytes in a valid file: this bounds the output by the file size.
                total += count
                guard total <= bytes.count else {
                    throw .invalidLayout(.corrupt(path: path, detail: "\(grid.kind.lowercased())s need more than the \(bytes.count) bytes of the file (they overlap)"))
                }
                let blockRows = grid.kind == "Tile" ? [grid.blockLength] : [rect.height, grid.blockLength]
                do throws(StreamError) {
                    let header = try Header(base + offset, count: count, blockSamples: grid.blockWidth * spp, blockRows: blockRows,
                                            neededRows: rect.height)
                    streams.append(Stream(block: i, rect: rect, start: offset + header.dataStart, end: end, header: header))
                } catch {
                    let what = "\(grid.kind.lowercased()) \(i): \(error.reason)"
                    let e: DecodeError = error.outOfScope ? .unsupported(path: path, reason: "lossless JPEG DNG decoder: \(what)")
                        : error.truncated ? .truncated(path: path, detail: what) : .corrupt(path: path, detail: what)
                    throw error.fatal ? .invalidData(e) : .invalidLayout(e)
                }
            }
            // LinearizationTable as a 2^16-entry curve (LibRaw's `curve`); empty when absent.
            var curve: [UInt16] = []
            if let table = layout.linearizationTable, !table.isEmpty {
                let n = min(table.count, 1 << 16)
                curve = (0..<(1 << 16)).map { table[min($0, n - 1)] }
            }
            let count = region.width * region.height * spp
            let workers = max(1, min(threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount, streams.count))
            var failures = [StreamError?](repeating: nil, count: streams.count)
            let pixels = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                guard let out = buffer.baseAddress else { initialized = 0; return }
                failures.withUnsafeMutableBufferPointer { failed in
                    let job = Job(file: base, out: out, region: region, samplesPerPixel: spp, blockSamples: grid.blockWidth * spp,
                                  curve: curve, failed: failed.baseAddress!)
                    if workers == 1 {
                        for k in streams.indices { job.run(streams[k], k) }
                    } else {
                        // Blocks cost about the same: worker k takes blocks k, k + workers, …
                        streams.withUnsafeBufferPointer { all in
                            let all = UnsafeSendable(all)
                            DispatchQueue.concurrentPerform(iterations: workers) { k in
                                for j in stride(from: k, to: all.value.count, by: workers) { job.run(all.value[j], j) }
                            }
                        }
                    }
                }
                initialized = count
            }
            if let k = failures.firstIndex(where: { $0 != nil }), let f = failures[k] {
                let what = "\(grid.kind.lowercased()) \(streams[k].block): \(f.reason)"
                throw .invalidData(f.truncated ? .truncated(path: path, detail: what) : .corrupt(path: path, detail: what))
            }
            return pixels
        }
        if let shrank = file.shrinkage(path: path) { throw .invalidData(shrank) }
        return pixels
    }

    private struct UnsafeSendable<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    /// One block's stream: where its entropy-coded data lies in the file and how to read it.
    package struct Stream: Sendable {
        let block: Int
        /// The block's part of the stored image.
        let rect: PixelRect
        /// File offsets of the first byte after SOS and of the end of the block's bytes.
        let start: Int, end: Int
        let header: Header
    }

    package struct StreamError: Error, Equatable {
        let reason: String
        var truncated = false
        /// Set on header errors that no reader could get past (reported as `invalidData`).
        var fatal = false
        /// A valid stream of another JPEG process (reported as `.unsupported`).
        var outOfScope = false
    }

    // MARK: - Headers

    /// The markers of one stream up to its scan (T.81 B.2): frame, scan, tables, restart interval.
    package struct Header: Sendable {
        /// Frame lines Y, columns X, components Nf (= Ns).
        var lines = 0, columns = 0, components = 0
        var precision = 0, predictor = 0, pointTransform = 0
        /// MCUs per restart interval (0: none); always whole lines.
        var restartInterval = 0
        /// The Huffman table of each scan component, in frame order.
        var tables: [HuffmanTable] = []
        /// Offset of the entropy-coded data from the stream's first byte.
        var dataStart = 0

        /// Parses `count` bytes at `p`; the frame must hold `blockSamples` × one of `blockRows`
        /// samples. A frame too small for the `neededRows` rows inside the image is fatal (LibRaw
        /// would leave the rest of the block unset).
        init(_ p: UnsafeRawPointer, count: Int, blockSamples: Int, blockRows: [Int], neededRows: Int) throws(StreamError) {
            func byte(_ i: Int) throws(StreamError) -> Int {
                guard i < count else { throw StreamError(reason: "stream ends inside its headers at byte \(i)", truncated: true) }
                return Int(p.load(fromByteOffset: i, as: UInt8.self))
            }
            func u16(_ i: Int) throws(StreamError) -> Int { try byte(i) << 8 | byte(i + 1) }
            guard try u16(0) == 0xFFD8 else { throw StreamError(reason: "no SOI marker") }
            var at = 2
            var defined: [HuffmanTable?] = [nil, nil, nil, nil]
            var frameIDs: [Int] = []
            var sawFrame = false
            while true {
                guard try byte(at) == 0xFF else { throw StreamError(reason: "no marker at byte \(at)") }
                var marker = try byte(at + 1)
                while marker == 0xFF { at += 1; marker = try byte(at + 1) }   // fill bytes
                at += 2
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
                if marker == 0xD9 { throw StreamError(reason: "EOI before the scan") }
                let length = try u16(at)
                guard length >= 2 else { throw StreamError(reason: "marker 0x\(String(marker, radix: 16)) segment length \(length)") }
                let body = at + 2, end = at + length
                guard end <= count else { throw StreamError(reason: "marker 0x\(String(marker, radix: 16)) segment runs past the stream", truncated: true) }
                switch marker {
                case 0xC3:
                    guard !sawFrame else { throw StreamError(reason: "two SOF markers") }
                    sawFrame = true
                    precision = try byte(body); lines = try u16(body + 1); columns = try u16(body + 3); components = try byte(body + 5)
                    guard (2...16).contains(precision) else { throw StreamError(reason: "SOF3 precision \(precision)") }
                    guard (1...4).contains(components), length == 8 + 3 * components else {
                        throw StreamError(reason: "SOF3 with \(components) components in \(length) bytes")
                    }
                    guard lines > 0, columns > 0 else { throw StreamError(reason: "SOF3 frame \(columns)x\(lines)") }
                    for c in 0..<components {
                        frameIDs.append(try byte(body + 6 + 3 * c))
                        guard try byte(body + 7 + 3 * c) == 0x11 else { throw StreamError(reason: "component sampling other than 1x1") }
                    }
                    guard Set(frameIDs).count == components else { throw StreamError(reason: "repeated component identifiers") }
                    let samples = lines * columns * components
                    // Every code is at least one bit (no LibRaw retry: it could not read them either).
                    guard samples <= 8 * count else {
                        throw StreamError(reason: "\(count) bytes cannot hold \(samples) samples", truncated: true, fatal: true)
                    }
                    guard samples >= neededRows * blockSamples else {
                        throw StreamError(reason: "SOF3 frame \(columns)x\(lines)x\(components) holds fewer than the \(neededRows) rows of \(blockSamples) samples the block needs", fatal: true)
                    }
                    guard blockRows.contains(where: { $0 * blockSamples == samples }) else {
                        throw StreamError(reason: "SOF3 frame \(columns)x\(lines)x\(components) does not fill a block of \(blockSamples) samples × \(blockRows[0]) rows")
                    }
                case 0xC4:
                    var i = body
                    while i < end {
                        let tcth = try byte(i)
                        // Class 1 (AC) tables have no use in a lossless scan: read and dropped.
                        guard tcth >> 4 < 2, tcth & 15 < 4 else { throw StreamError(reason: "DHT table class/id 0x\(String(tcth, radix: 16))") }
                        var counts: [Int] = []
                        for k in 0..<16 { counts.append(try byte(i + 1 + k)) }
                        let n = counts.reduce(0, +)
                        guard i + 17 + n <= end else { throw StreamError(reason: "DHT runs past its segment") }
                        var symbols: [Int] = []
                        for k in 0..<n { symbols.append(try byte(i + 17 + k)) }
                        if tcth >> 4 == 0 {
                            guard symbols.allSatisfy({ $0 <= 16 }) else { throw StreamError(reason: "Huffman symbol above 16") }
                            defined[tcth & 15] = try HuffmanTable(counts: counts, symbols: symbols)
                        }
                        i += 17 + n
                    }
                case 0xDD:
                    guard length == 4 else { throw StreamError(reason: "DRI length \(length)") }
                    restartInterval = try u16(body)
                case 0xDA:
                    guard sawFrame else { throw StreamError(reason: "SOS before SOF3") }
                    let ns = try byte(body)
                    guard ns == components, length == 6 + 2 * ns else {
                        throw StreamError(reason: "scan of \(ns) components in a frame of \(components) (one interleaved scan needed)")
                    }
                    var order: [Int] = []
                    for c in 0..<ns {
                        let id = try byte(body + 1 + 2 * c), td = try byte(body + 2 + 2 * c) >> 4
                        guard frameIDs.firstIndex(of: id) == c else { throw StreamError(reason: "scan components out of frame order") }
                        guard td < 4, let table = defined[td] else { throw StreamError(reason: "component \(id) uses undefined Huffman table \(td)") }
                        tables.append(table); order.append(id)
                    }
                    predictor = try byte(body + 1 + 2 * ns)
                    let se = try byte(body + 2 + 2 * ns), ahal = try byte(body + 3 + 2 * ns)
                    pointTransform = ahal & 15
                    guard (1...7).contains(predictor) else { throw StreamError(reason: "predictor \(predictor)") }
                    guard se == 0, ahal >> 4 == 0, pointTransform < precision else {
                        throw StreamError(reason: "scan Se \(se), Ah/Al 0x\(String(ahal, radix: 16))")
                    }
                    if restartInterval > 0 && restartInterval % columns != 0 {
                        throw StreamError(reason: "restart interval \(restartInterval) is not whole lines of \(columns)")
                    }
                    dataStart = end
                    return
                case 0xC1:
                    // Extended DCT (some Blackmagic DNGs): LibRaw decodes it.
                    throw StreamError(reason: "SOF1 frame (only SOF3, lossless Huffman)", outOfScope: true)
                case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                    // No DNG reader decodes these (LibRaw would leave the block empty).
                    throw StreamError(reason: "SOF\(marker - 0xC0) frame in a DNG", fatal: true)
                case 0xDC:
                    throw StreamError(reason: "DNL marker")
                default:
                    break   // APPn, COM, DQT, …: skipped
                }
                at = end
            }
        }
    }

    /// A Huffman table (T.81 C.2, F.2.2.3) with a `lookupBits`-bit first-level lookup that, when
    /// code and extra bits fit, yields the whole difference. Immutable; its storage is one block
    /// the decoding loop reads through `view` without reference counting.
    package final class HuffmanTable: @unchecked Sendable {
        static let lookupBits = 11
        static let lookupSize = 1 << lookupBits
        /// Per `lookupBits`-bit prefix: 0 when the code is longer (or undefined); else bits used
        /// (low 5 bits) and either the flag 0x20 with the difference (bits 8…, signed) or SSSS
        /// (bits 8…). Then maxCode[0…16] (longest code of each length, −1: none),
        /// valueOffset[0…16] (index of its first symbol minus its first code) and the symbols.
        private let storage: UnsafeMutablePointer<Int32>
        let view: View

        /// Pointers into the storage, valid while the table lives.
        struct View {
            let lookup: UnsafePointer<Int32>, maxCode: UnsafePointer<Int32>
            let valueOffset: UnsafePointer<Int32>, symbols: UnsafePointer<Int32>
            let symbolCount: Int
        }

        init(counts: [Int], symbols: [Int]) throws(StreamError) {
            let size = Self.lookupSize + 17 + 17 + max(symbols.count, 1)
            let storage = UnsafeMutablePointer<Int32>.allocate(capacity: size)
            storage.initialize(repeating: 0, count: size)
            let lookup = storage, maxCode = storage + Self.lookupSize, valueOffset = maxCode + 17, values = valueOffset + 17
            for k in symbols.indices { values[k] = Int32(symbols[k]) }
            for len in 0...16 { maxCode[len] = -1 }
            var code = 0, k = 0
            for len in 1...16 {
                let n = counts[len - 1]
                valueOffset[len] = Int32(k - code)
                for _ in 0..<n {
                    // Codes of length `len` must fit in `len` bits (a table that over-fills is corrupt).
                    guard code < 1 << len else {
                        storage.deallocate()
                        throw StreamError(reason: "Huffman table with more codes than lengths allow")
                    }
                    let ssss = symbols[k]
                    if len <= Self.lookupBits {
                        let spare = Self.lookupBits - len
                        for low in 0..<(1 << spare) {
                            let entry: Int32
                            if ssss == 16 {
                                entry = Int32(32768) << 8 | 0x20 | Int32(len)
                            } else if len + ssss <= Self.lookupBits {
                                let extra = ssss == 0 ? 0 : low >> (spare - ssss)
                                let diff = ssss == 0 ? 0 : (extra >> (ssss - 1) != 0 ? extra : extra - (1 << ssss) + 1)
                                entry = Int32(diff) << 8 | 0x20 | Int32(len + ssss)
                            } else {
                                entry = Int32(ssss) << 8 | Int32(len)
                            }
                            lookup[code << spare | low] = entry
                        }
                    }
                    code += 1; k += 1
                }
                if n > 0 { maxCode[len] = Int32(code - 1) }
                code <<= 1
            }
            self.storage = storage
            view = View(lookup: lookup, maxCode: maxCode, valueOffset: valueOffset, symbols: values, symbolCount: symbols.count)
        }

        deinit { storage.deallocate() }
    }

    // MARK: - Entropy-coded data

    /// MSB-first bits of an entropy-coded segment: a stuffed 0xFF 0x00 is 0xFF, any other marker
    /// ends the segment, and zero bits follow its end. `overread` tells whether bits past the
    /// end were consumed.
    package struct BitReader {
        let base: UnsafePointer<UInt8>
        var pos: Int
        let end: Int
        var buffer: UInt64 = 0
        /// Valid bits in `buffer` (left-aligned), of which the last `padding` are past the end.
        var count = 0
        var padding = 0
        var atMarker = false

        init(_ base: UnsafeRawPointer, from: Int, to: Int) {
            self.base = base.assumingMemoryBound(to: UInt8.self); pos = from; end = to
        }

        @inline(__always)
        mutating func fill() {
            // Eight bytes at once when none of them is 0xFF.
            if !atMarker && pos + 8 <= end {
                let w = UInt64(bigEndian: UnsafeRawPointer(base + pos).loadUnaligned(as: UInt64.self))
                let x = ~w
                if (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 == 0 {
                    let bytes = (64 - count) >> 3, bits = bytes << 3
                    let top = bits == 64 ? w : w & ~(UInt64.max >> UInt64(bits))
                    buffer |= top >> UInt64(count)
                    pos += bytes; count += bits
                    return
                }
            }
            while count <= 56 {
                var b: UInt64 = 0
                if !atMarker && pos < end {
                    let v = base[pos]
                    if v == 0xFF {
                        if pos + 1 < end && base[pos + 1] == 0 { pos += 2; b = 0xFF } else { atMarker = true; padding += 8 }
                    } else {
                        pos += 1; b = UInt64(v)
                    }
                } else {
                    atMarker = true; padding += 8
                }
                buffer |= b << UInt64(56 - count)
                count += 8
            }
        }

        @inline(__always) func peek(_ n: Int) -> Int { Int(truncatingIfNeeded: buffer >> UInt64(64 - n)) }
        @inline(__always) mutating func skip(_ n: Int) { buffer <<= UInt64(n); count -= n }

        var overread: Bool { padding > count }

        /// Drops the rest of the current byte and reads the next marker, which must be
        /// RST`expected` (T.81 E.2.4: the decoder locates the next marker).
        mutating func restart(_ expected: Int) -> Bool {
            buffer = 0; count = 0; padding = 0; atMarker = false
            while pos + 1 < end && !(base[pos] == 0xFF && base[pos + 1] != 0 && base[pos + 1] != 0xFF) { pos += 1 }
            guard pos + 1 < end, Int(base[pos + 1]) == 0xD0 + expected else { return false }
            pos += 2
            return true
        }
    }

    /// T.81 Table H.1 (shifts are arithmetic; wrapping arithmetic, masked by the caller). The
    /// encoder (`LosslessJPEGEncoder`) predicts with the same function.
    @inline(__always)
    package static func predict(_ selection: Int, ra: Int32, rb: Int32, rc: Int32) -> Int32 {
        switch selection {
        case 1: return ra
        case 2: return rb
        case 3: return rc
        case 4: return ra &+ rb &- rc
        case 5: return ra &+ ((rb &- rc) >> 1)
        case 6: return rb &+ ((ra &- rc) >> 1)
        default: return (ra &+ rb) >> 1
        }
    }

    /// Shared by the workers: the mapped file (read only), the output (disjoint blocks each) and
    /// one failure slot per stream.
    private struct Job: @unchecked Sendable {
        let file: UnsafeRawPointer
        let out: UnsafeMutablePointer<UInt16>
        let region: PixelRect
        let samplesPerPixel: Int
        /// Samples of one block row (block width × SamplesPerPixel).
        let blockSamples: Int
        /// LinearizationTable curve over all 2^16 values, or empty.
        let curve: [UInt16]
        let failed: UnsafeMutablePointer<StreamError?>

        func run(_ s: Stream, _ k: Int) {
            do { try decode(s) } catch { failed[k] = error }
        }

        /// Decodes stream `s` line by line, copying each line's samples to their block positions.
        func decode(_ s: Stream) throws(StreamError) {
            let h = s.header, nc = h.components, lineSamples = h.columns * nc
            let rows = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * lineSamples)
            defer { rows.deallocate() }
            let tables = UnsafeMutablePointer<HuffmanTable.View>.allocate(capacity: nc)
            defer { tables.deallocate() }
            for c in 0..<nc { (tables + c).initialize(to: h.tables[c].view) }
            var previous = rows, current = rows + lineSamples
            var reader = BitReader(file, from: s.start, to: s.end)
            let limit = Int32(1) << Int32(h.precision - h.pointTransform)
            let initial = limit >> 1
            // Block cursor: sample index within the block (row-major, blockSamples per row).
            var blockIndex = 0
            var restarts = 0
            var line = 0
            do throws(StreamError) {
                while line < h.lines {
                    let restartLine = h.restartInterval > 0 && (line * h.columns) % h.restartInterval == 0
                    if restartLine && line > 0 {
                        if reader.overread { throw StreamError(reason: "data ends inside restart interval \(restarts)", truncated: true) }
                        guard reader.restart(restarts % 8) else { throw StreamError(reason: "RST\(restarts % 8) marker missing before line \(line)") }
                        restarts += 1
                    }
                    let first = line == 0 || restartLine
                    var overflow: Int32 = 0
                    for c in 0..<nc {
                        let v = ((first ? initial : previous[c]) &+ (try Self.diff(&reader, tables + c))) & 0xFFFF
                        current[c] = v; overflow |= v
                    }
                    try Self.decodeLine(&reader, tables, current, previous, lineSamples, nc, first ? 1 : h.predictor, &overflow)
                    if overflow >= limit { throw StreamError(reason: "sample above \(limit - 1) on line \(line)") }
                    store(current, lineSamples, shift: h.pointTransform, blockIndex: blockIndex, rect: s.rect)
                    blockIndex += lineSamples
                    swap(&previous, &current)
                    line += 1
                }
            } catch {
                // Zeros read past the end decode to nonsense: the end of the data is the cause.
                if reader.overread { throw StreamError(reason: "data ends on line \(line) of \(h.lines)", truncated: true) }
                throw error
            }
            if reader.overread { throw StreamError(reason: "data ends before the last of \(h.lines) lines", truncated: true) }
        }

        /// Samples `nc…` of a line (the first `nc` are done): predictor `selection` (1 on the
        /// first line of a scan or restart interval, which never reads `prev`).
        @inline(__always)
        static func decodeLine(_ reader: inout BitReader, _ tables: UnsafePointer<HuffmanTable.View>, _ cur: UnsafeMutablePointer<Int32>,
                               _ prev: UnsafeMutablePointer<Int32>, _ n: Int, _ nc: Int, _ selection: Int,
                               _ overflow: inout Int32) throws(StreamError) {
            var acc = overflow
            if selection == 1 && nc == 1 {
                var ra = cur[0]
                for i in 1..<max(n, 1) {
                    ra = (ra &+ (try diff(&reader, tables))) & 0xFFFF
                    cur[i] = ra; acc |= ra
                }
            } else if selection == 1 {
                var i = nc
                while i < n {
                    for c in 0..<nc {
                        let v = (cur[i - nc] &+ (try diff(&reader, tables + c))) & 0xFFFF
                        cur[i] = v; acc |= v; i += 1
                    }
                }
            } else {
                var i = nc
                while i < n {
                    for c in 0..<nc {
                        let p = LosslessJPEGDecoder.predict(selection, ra: cur[i - nc], rb: prev[i], rc: prev[i - nc])
                        let v = (p &+ (try diff(&reader, tables + c))) & 0xFFFF
                        cur[i] = v; acc |= v; i += 1
                    }
                }
            }
            overflow = acc
        }

        /// One difference: a Huffman-coded SSSS and its extra bits (T.81 F.2.2.1, H.1.2.2).
        @inline(__always)
        static func diff(_ r: inout BitReader, _ table: UnsafePointer<HuffmanTable.View>) throws(StreamError) -> Int32 {
            if r.count < 32 { r.fill() }
            let t = table.pointee
            let entry = t.lookup[r.peek(HuffmanTable.lookupBits)]
            if entry & 0x20 != 0 {
                r.skip(Int(entry & 0x1F))
                return entry >> 8
            }
            var ssss: Int
            if entry != 0 {
                r.skip(Int(entry & 0x1F)); ssss = Int(entry >> 8)
            } else {
                // Codes longer than the lookup: T.81 F.2.2.3 DECODE.
                var len = HuffmanTable.lookupBits + 1
                var code = Int32(r.peek(len))
                while len <= 16 && code > t.maxCode[len] { len += 1; code = Int32(r.peek(len)) }
                guard len <= 16 else { throw StreamError(reason: "undefined Huffman code") }
                r.skip(len)
                let index = Int(t.valueOffset[len] &+ code)
                guard index >= 0 && index < t.symbolCount else { throw StreamError(reason: "undefined Huffman code") }
                ssss = Int(t.symbols[index])
                if ssss == 16 { return 32768 }
            }
            if ssss == 0 { return 0 }
            let extra = Int32(r.peek(ssss))
            r.skip(ssss)
            return extra >> Int32(ssss - 1) != 0 ? extra : extra &- (Int32(1) << Int32(ssss)) &+ 1
        }

        /// Copies a decoded line (block samples `blockIndex…`) to the output, where it lies in
        /// the region; the line may wrap over several block rows.
        func store(_ line: UnsafeMutablePointer<Int32>, _ n: Int, shift: Int, blockIndex: Int, rect: PixelRect) {
            let spp = samplesPerPixel
            let left = max(rect.x, region.x), right = min(rect.maxX, region.maxX)
            guard left < right else { return }
            var k = 0
            while k < n {
                let at = blockIndex + k
                let row = at / blockSamples, col = at - row * blockSamples
                let run = min(n - k, blockSamples - col)
                let y = rect.y + row
                if y >= region.y && y < region.maxY && y < rect.maxY {
                    // Samples of this run within columns left…right.
                    let from = max(col, (left - rect.x) * spp), to = min(col + run, (right - rect.x) * spp)
                    if from < to {
                        let dst = out + ((y - region.y) * region.width + (rect.x - region.x)) * spp
                        let src = line + k - col
                        if curve.isEmpty {
                            for i in from..<to { dst[i] = UInt16(truncatingIfNeeded: src[i] << Int32(shift)) }
                        } else {
                            curve.withUnsafeBufferPointer { c in
                                for i in from..<to { dst[i] = c[Int(src[i] << Int32(shift)) & 0xFFFF] }
                            }
                        }
                    }
                }
                k += run
            }
        }
    }
}
