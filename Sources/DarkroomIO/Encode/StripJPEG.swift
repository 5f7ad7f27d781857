import Dispatch

/// Encodes a large image as horizontal strips on all cores and joins them into one baseline JPEG
/// with restart markers (ITU T.81 §B.2.4.4, §E.1.4): each strip is an independent TurboJPEG
/// encode of whole MCU rows, so its entropy-coded data is exactly one restart interval (DC
/// prediction starts at zero, as after a restart). The joined stream is strip 0's headers with the
/// frame height patched and a DRI segment added, then every strip's scan data separated by
/// RST0…RST7. Coefficients are identical to a single-pass encode (strips end on MCU boundaries),
/// so a decoder reproduces the same pixels; the strip size depends only on the image, never on
/// the thread count, so the bytes are deterministic.
enum StripJPEG {
    /// Images with fewer MCU rows than two strips are encoded in one piece.
    static let targetStripMCURows = 32

    static func compress(rgb: [UInt8], width: Int, height: Int, quality: Int,
                         sampling: TurboJPEG.Sampling) throws(EncodeError) -> [UInt8] {
        let mcuW = sampling == .s444 || sampling == .gray ? 8 : 16
        let mcuH = sampling == .s420 ? 16 : 8
        let mcusPerRow = (width + mcuW - 1) / mcuW
        let stripMCURows = max(1, min(targetStripMCURows, 65535 / max(mcusPerRow, 1)))
        let stripRows = stripMCURows * mcuH
        let strips = (height + stripRows - 1) / stripRows
        if strips < 2 || mcusPerRow * stripMCURows > 65535 {
            let tj = try TurboJPEG(.compress)
            return try tj.compress(pixels: rgb, width: width, height: height, channels: 3, quality: quality, sampling: sampling)
        }
        let results = StripResults(count: strips)
        rgb.withUnsafeBufferPointer { buf in
            let base = SendablePointer(p: buf.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: strips) { k in
                let y0 = k * stripRows, h = min(stripRows, height - y0)
                do throws(EncodeError) {
                    let tj = try TurboJPEG(.compress)
                    results.set(k, .success(try tj.compress(base: base.p + y0 * width * 3, width: width, height: h,
                                                            channels: 3, quality: quality, sampling: sampling)))
                } catch { results.set(k, .failure(error)) }
            }
        }
        var parts: [[UInt8]] = []
        for r in results.all {
            switch r {
            case .success(let b)?: parts.append(b)
            case .failure(let e)?: throw e
            case nil: throw .library(format: "JPEG", call: "tjCompress2", message: "strip not encoded")
            }
        }
        // Split each strip into headers (through the SOS segment) and scan data (before EOI).
        var heads: [[UInt8]] = [], scans: [ArraySlice<UInt8>] = []
        for p in parts {
            guard let (head, scan) = splitAtScan(p) else {
                throw .container(format: "JPEG", reason: "unexpected TurboJPEG stream layout")
            }
            heads.append(head); scans.append(scan)
        }
        // All strips must share tables (same quality and sampling → same DQT/DHT); else one piece.
        let tables0 = tableSegments(heads[0])
        guard heads.dropFirst().allSatisfy({ tableSegments($0) == tables0 }), var out = patchedHead(heads[0], height: height,
                                                                                            restartInterval: mcusPerRow * stripMCURows) else {
            let tj = try TurboJPEG(.compress)
            return try tj.compress(pixels: rgb, width: width, height: height, channels: 3, quality: quality, sampling: sampling)
        }
        out.reserveCapacity(parts.reduce(0) { $0 + $1.count } + strips * 2)
        for (k, scan) in scans.enumerated() {
            if k > 0 { out += [0xFF, UInt8(0xD0 + (k - 1) % 8)] }
            out += scan
        }
        out += [0xFF, 0xD9]
        return out
    }

    /// (bytes through the end of the SOS segment, entropy-coded data up to EOI).
    static func splitAtScan(_ b: [UInt8]) -> ([UInt8], ArraySlice<UInt8>)? {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8, b[b.count - 2] == 0xFF, b[b.count - 1] == 0xD9 else { return nil }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard len >= 2, i + 2 + len <= b.count else { return nil }
            if marker == 0xDA {
                let end = i + 2 + len
                return (Array(b[0..<end]), b[end..<(b.count - 2)])
            }
            i += 2 + len
        }
        return nil
    }

    /// DQT, DHT and SOF segments, for comparing strips.
    static func tableSegments(_ head: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 2
        while i + 4 <= head.count, head[i] == 0xFF {
            let marker = head[i + 1]
            let len = Int(head[i + 2]) << 8 | Int(head[i + 3])
            if marker == 0xDB || marker == 0xC4 { out.append(Array(head[i..<min(i + 2 + len, head.count)])) }
            if marker == 0xC0 { out.append(Array(head[(i + 7)..<min(i + 2 + len, head.count)])) }  // SOF minus its height/width
            i += 2 + len
        }
        return out
    }

    /// Strip 0's headers with the SOF0 height set to the whole image and a DRI segment before SOS.
    static func patchedHead(_ head: [UInt8], height: Int, restartInterval: Int) -> [UInt8]? {
        guard height <= 65535, restartInterval <= 65535 else { return nil }
        var h = head
        var i = 2
        var sos: Int?
        while i + 4 <= h.count, h[i] == 0xFF {
            let marker = h[i + 1]
            let len = Int(h[i + 2]) << 8 | Int(h[i + 3])
            if marker == 0xC0 {               // SOF0: length(2) precision(1) height(2) width(2) …
                h[i + 5] = UInt8(height >> 8); h[i + 6] = UInt8(height & 0xFF)
            }
            if marker == 0xDD { return nil }  // already has a DRI: do not stack another
            if marker == 0xDA { sos = i; break }
            i += 2 + len
        }
        guard let sos else { return nil }
        let dri: [UInt8] = [0xFF, 0xDD, 0x00, 0x04, UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF)]
        h.insert(contentsOf: dri, at: sos)
        return h
    }

    private struct SendablePointer: @unchecked Sendable { let p: UnsafePointer<UInt8> }

    private final class StripResults: @unchecked Sendable {
        private var slots: [Result<[UInt8], EncodeError>?]
        private let lock = NSLockish()
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: Result<[UInt8], EncodeError>) { lock.withLock { slots[i] = r } }
        var all: [Result<[UInt8], EncodeError>?] { lock.withLock { slots } }
    }
}

import Foundation
private typealias NSLockish = NSLock
