import Dispatch

/// Demosaics a whole mosaic the way the scheduler does: output tiles of `tileSize`, each read with
/// the kernel's halo around it, image edges extended by mirroring about the edge pixel (which keeps
/// the CFA phase), tiles spread over `workers` threads. Output is bit-identical for every tile size
/// and worker count. Used by tests and `bench-demosaic`; the production scheduler fuses more stages.
public struct DemosaicTiler: Sendable {
    public var kernel: any DemosaicKernel
    public var tileSize: Int
    public var workers: Int

    public init(kernel: any DemosaicKernel, tileSize: Int = 256, workers: Int = 1) {
        self.kernel = kernel; self.tileSize = max(1, tileSize); self.workers = max(1, workers)
    }

    /// `mosaic` is `width × height`, `cfa` as seen from its top-left pixel. Returns planar R, G, B.
    /// Any size works (the mirror repeats for images narrower than the halo; a 1-pixel-wide
    /// image is extended by repetition, which breaks the CFA phase but stays finite).
    public func run(mosaic: [Float], width: Int, height: Int, cfa: CFAPattern) -> (red: [Float], green: [Float], blue: [Float]) {
        precondition(mosaic.count == width * height, "DemosaicTiler: mosaic.count != width * height")
        guard width > 0, height > 0 else { return ([], [], []) }
        // Every sample is written by exactly one tile: no serial zero-fill of the planes.
        var red: [Float] = .uninitialized(count: width * height)
        var green: [Float] = .uninitialized(count: width * height)
        var blue: [Float] = .uninitialized(count: width * height)
        let tilesX = (width + tileSize - 1) / tileSize, tilesY = (height + tileSize - 1) / tileSize
        let tileCount = tilesX * tilesY
        let kernel = self.kernel, tileSize = self.tileSize, workers = min(self.workers, tileCount)
        mosaic.withUnsafeBufferPointer { m in
            red.withUnsafeMutableBufferPointer { r in
                green.withUnsafeMutableBufferPointer { g in
                    blue.withUnsafeMutableBufferPointer { b in
                        guard let mp = m.baseAddress, let rp = r.baseAddress, let gp = g.baseAddress, let bp = b.baseAddress else { return }
                        let shared = SharedPlanes(mosaic: mp, red: rp, green: gp, blue: bp)
                        DispatchQueue.concurrentPerform(iterations: workers) { worker in
                            var tile = worker
                            while tile < tileCount {
                                let tx = (tile % tilesX) * tileSize, ty = (tile / tilesX) * tileSize
                                Self.runTile(kernel: kernel, shared: shared, width: width, height: height, cfa: cfa,
                                             x0: tx, y0: ty, tw: min(tileSize, width - tx), th: min(tileSize, height - ty))
                                tile += workers
                            }
                        }
                    }
                }
            }
        }
        return (red, green, blue)
    }

    private static func runTile(kernel: any DemosaicKernel, shared: SharedPlanes, width: Int, height: Int,
                                cfa: CFAPattern, x0: Int, y0: Int, tw: Int, th: Int) {
        let halo = kernel.halo
        // Region at least 2·halo+2 wide: grow small edge tiles' padding if needed.
        let rw = max(tw + 2 * halo, 2 * halo + 2), rh = max(th + 2 * halo, 2 * halo + 2)
        let ox = x0 - halo, oy = y0 - halo
        let count = rw * rh
        let input = UnsafeMutablePointer<Float>.allocate(capacity: count * 4)
        defer { input.deallocate() }
        let r = input + count, g = input + 2 * count, b = input + 3 * count
        // Columns inside the image are one copy per row; only the mirrored margins go pixel by pixel.
        // (Never empty: a tile starts inside the image and its region ends past that start.)
        let inside = max(ox, 0)..<min(ox + rw, width)
        for y in 0..<rh {
            let source = shared.mosaic + mirror(oy + y, height) * width, row = input + y * rw
            for x in 0..<(inside.lowerBound - ox) { row[x] = source[mirror(ox + x, width)] }
            (row + (inside.lowerBound - ox)).update(from: source + inside.lowerBound, count: inside.count)
            for x in (inside.upperBound - ox)..<rw { row[x] = source[mirror(ox + x, width)] }
        }
        kernel.demosaic(mosaic: input, width: rw, height: rh, cfa: cfa.shifted(dx: ox, dy: oy),
                        red: r, green: g, blue: b)
        for y in 0..<th {
            let src = (y + halo) * rw + halo, dst = (y0 + y) * width + x0
            (shared.red + dst).update(from: r + src, count: tw)
            (shared.green + dst).update(from: g + src, count: tw)
            (shared.blue + dst).update(from: b + src, count: tw)
        }
    }

    /// Reflects `i` into 0..<n about the edge pixels (…, 2, 1, 0, 1, 2, …), keeping parity.
    @inline(__always)
    static func mirror(_ i: Int, _ n: Int) -> Int {
        guard n > 1 else { return 0 }
        var j = i
        while j < 0 || j >= n { j = j < 0 ? -j : 2 * (n - 1) - j }
        return j
    }
}

/// Base pointers of the whole-image planes; tiles write disjoint pixels, so sharing is safe.
private struct SharedPlanes: @unchecked Sendable {
    let mosaic: UnsafePointer<Float>
    let red: UnsafeMutablePointer<Float>
    let green: UnsafeMutablePointer<Float>
    let blue: UnsafeMutablePointer<Float>
}
