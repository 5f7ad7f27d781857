import CLibRaw
import CShims
import DarkroomCore
import Foundation

/// What LibRaw unpacked from a file: the stored sensor data (before any processing) and the
/// facts LibRaw knows about it. Coordinates of `pixels` are stored-image coordinates
/// (`rawWidth × rawHeight`); `visible` is LibRaw's idea of the image area inside them.
struct LibRawUnpacked {
    var rawWidth: Int
    var rawHeight: Int
    /// 1 for a CFA mosaic, 3 for full-colour raws (LinearRaw DNG, sRAW).
    var samplesPerPixel: Int
    var pixels: [UInt16]
    var visible: PixelRect
    /// The Bayer layout as seen from `visible`'s origin (nil for full-colour data).
    var cfa: CFAPattern?
    /// Black level for each site of the 2×2 cell seen from `visible`'s origin (row-major).
    var blackPerSite: [Double]
    var maximum: Double
    /// `cam_xyz`: XYZ (D65) → camera, LibRaw's single (Adobe D65) matrix; nil if LibRaw has none.
    var xyzToCamera: Matrix3?
    /// `rgb_cam`: white-balanced camera RGB → linear sRGB (D65), when LibRaw has no `cam_xyz` but
    /// its own tables or the maker's data give a transform other than the identity (Kodak DC50,
    /// say); nil otherwise.
    var cameraToLinearSRGB: Matrix3?
    /// `cam_mul` as-shot multipliers R, G, B (0 when unknown).
    var cameraMultipliers: [Double]
    /// `pre_mul`: the camera's daylight multipliers (0 when unknown).
    var daylightMultipliers: [Double]
    /// LibRaw `flip` (0, 3, 5, 6).
    var flip: Int
    var exif: ExifInfo
    var formatName: String
}

/// The only code that talks to LibRaw (`libraw_r`, one handle per call, thread-safe).
enum LibRawDecoder {
    /// Opens `path` and unpacks the stored sensor data. `unpackPixels: false` reads only metadata.
    /// `budget`, when given, is checked against the size LibRaw found before it unpacks.
    static func unpack(path: String, unpackPixels: Bool = true, budget: DecodeBudget? = nil) throws(DecodeError) -> LibRawUnpacked {
        guard let handle = libraw_init(0) else {
            throw .unreadable(path: path, reason: "LibRaw could not allocate a decoder")
        }
        defer { libraw_close(handle) }
        // LibRaw prints data and memory errors to stderr by default and then carries on with
        // zeros; we count them instead and refuse the file (no partial images).
        let dataErrors = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        dataErrors.initialize(to: 0)
        defer { dataErrors.deallocate() }
        libraw_set_dataerror_handler(handle, { ctx, _, _ in
            ctx?.assumingMemoryBound(to: Int.self).pointee += 1
        }, UnsafeMutableRawPointer(dataErrors))
        libraw_set_memerror_handler(handle, { _, _, _ in }, nil)
        try check(libraw_open_file(handle, path), path: path, stage: "open")
        if unpackPixels, let budget {
            let s = handle.pointee.sizes
            let colours = handle.pointee.idata.filters == 0 ? 3 : 1
            try budget.check(width: Int(s.raw_width), height: Int(s.raw_height), samplesPerPixel: colours, path: path)
        }
        if unpackPixels {
            try check(libraw_unpack(handle), path: path, stage: "unpack")
            if dataErrors.pointee > 0 {
                throw .truncated(path: path, detail: "LibRaw ran out of image data while unpacking (\(dataErrors.pointee) data errors)")
            }
        }

        let d = handle.pointee
        let s = d.sizes
        let rawWidth = Int(s.raw_width), rawHeight = Int(s.raw_height)
        guard rawWidth > 0, rawHeight > 0, rawWidth <= 65535, rawHeight <= 65535 else {
            throw .corrupt(path: path, detail: "LibRaw reports an image of \(rawWidth)x\(rawHeight)")
        }
        let visible = PixelRect(x: Int(s.left_margin), y: Int(s.top_margin), width: Int(s.width), height: Int(s.height))
        guard !visible.isEmpty, PixelRect(x: 0, y: 0, width: rawWidth, height: rawHeight).contains(visible) else {
            throw .corrupt(path: path, detail: "visible area \(visible) lies outside the \(rawWidth)x\(rawHeight) sensor")
        }

        let filters = d.idata.filters
        let colors = Int(d.idata.colors)
        var cfa: CFAPattern?
        var spp = 1
        if filters == 0 {
            spp = 3
        } else if filters == 9 || filters < 1000 {
            throw .unsupported(path: path, reason: "X-Trans or non-Bayer colour filter array")
        } else {
            var cs: [CFAColor] = []
            for y in 0..<2 { for x in 0..<2 {
                let c = libraw_COLOR(handle, Int32(y), Int32(x))
                cs.append(c == 0 ? .red : c == 2 ? .blue : .green)
            } }
            guard let p = CFAPattern(colors: cs) else {
                throw .unsupported(path: path, reason: "colour filter array is not a 2x2 Bayer pattern")
            }
            cfa = p
        }
        if colors != 3 && colors != 4 {
            throw .unsupported(path: path, reason: "\(colors)-colour sensor")
        }
        // LibRaw names its colours in `cdesc` ("RGBG" for Bayer, "GMCY" for CMYG, "RGBE"); a
        // mosaic of other colours than red, green and blue cannot be read as a Bayer mosaic.
        let cdesc = cString(d.idata.cdesc)
        if filters != 0, colors == 4, cdesc.contains(where: { !"RGB".contains($0) }) {
            throw .unsupported(path: path, reason: "four-colour \(cdesc) filter array (not red, green and blue); Darkroom develops and converts RGB mosaics only")
        }

        // Per-site black: black + cblack[colour] + the cblack[6…] repeat pattern.
        let cb: (Int) -> Double = { Double(dr_libraw_cblack(handle, UInt32($0))) }
        let patternRows = Int(cb(4)), patternCols = Int(cb(5))
        var blackPerSite: [Double] = []
        for y in 0..<2 { for x in 0..<2 {
            var b = Double(d.color.black)
            if cfa != nil { b += cb(Int(libraw_COLOR(handle, Int32(y), Int32(x))) & 3) }
            if patternRows > 0, patternCols > 0, patternRows * patternCols <= 4096 - 6 {
                // Average the pattern positions that land on this site (exact for 1×1 and 2×2 patterns).
                var sum = 0.0, n = 0.0
                var r = y % patternRows
                repeat {
                    var c = x % patternCols
                    repeat { sum += cb(6 + r * patternCols + c); n += 1; c += 2 } while c < patternCols && patternCols > 1
                    r += 2
                } while r < patternRows && patternRows > 1
                if n > 0 { b += sum / n }
            }
            blackPerSite.append(b)
        } }

        var pixels: [UInt16] = []
        if unpackPixels {
            let raw = d.rawdata
            let pitch = Int(s.raw_pitch)
            if let mosaic = raw.raw_image, spp == 1 {
                guard pitch >= rawWidth * 2 else { throw .corrupt(path: path, detail: "row pitch \(pitch) too small") }
                pixels = [UInt16](repeating: 0, count: rawWidth * rawHeight)
                pixels.withUnsafeMutableBufferPointer { dst in
                    let src = UnsafeRawPointer(mosaic)
                    for y in 0..<rawHeight {
                        (dst.baseAddress! + y * rawWidth).update(
                            from: (src + y * pitch).assumingMemoryBound(to: UInt16.self), count: rawWidth)
                    }
                }
            } else if raw.color3_image != nil || raw.color4_image != nil {
                spp = 3
                cfa = nil
                let stride = raw.color3_image != nil ? 3 : 4
                let base = UnsafeRawPointer(raw.color3_image.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(raw.color4_image!))
                guard pitch >= rawWidth * stride * 2 else { throw .corrupt(path: path, detail: "row pitch \(pitch) too small") }
                pixels = [UInt16](repeating: 0, count: rawWidth * rawHeight * 3)
                pixels.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<rawHeight {
                        let row = (base + y * pitch).assumingMemoryBound(to: UInt16.self)
                        for x in 0..<rawWidth {
                            for c in 0..<3 { dst[(y * rawWidth + x) * 3 + c] = row[x * stride + c] }
                        }
                    }
                }
            } else if raw.float_image != nil || raw.float3_image != nil || raw.float4_image != nil {
                throw .unsupported(path: path, reason: "floating-point raw data")
            } else {
                throw .unsupported(path: path, reason: "LibRaw returned no raw data")
            }
        }

        // cam_xyz rows 0…2 (XYZ → camera R, G, B); all zero when LibRaw has no matrix.
        let cx = d.color.cam_xyz
        let rows = [cx.0, cx.1, cx.2]
        let m = rows.flatMap { [Double($0.0), Double($0.1), Double($0.2)] }
        let xyzToCamera = m.contains(where: { $0 != 0 }) && m.allSatisfy(\.isFinite) ? Matrix3(m) : nil
        let rc = d.color.rgb_cam
        let r = [rc.0, rc.1, rc.2].flatMap { [Double($0.0), Double($0.1), Double($0.2)] }
        var cameraToLinearSRGB: Matrix3?
        if xyzToCamera == nil, r.allSatisfy(\.isFinite), Matrix3(r) != Matrix3.identity, Matrix3(r).inverse != nil {
            cameraToLinearSRGB = Matrix3(r)
        }
        let cm = d.color.cam_mul
        let multipliers = [Double(cm.0), Double(cm.1), Double(cm.2)]
        let pm = d.color.pre_mul
        let daylight = [Double(pm.0), Double(pm.1), Double(pm.2)]

        var exif = ExifInfo()
        exif.make = nonEmpty(cString(d.idata.make))
        exif.model = nonEmpty(cString(d.idata.model))
        exif.software = nonEmpty(cString(d.idata.software))
        exif.artist = nonEmpty(cString(d.other.artist))
        if d.other.iso_speed > 0 { exif.isoSpeed = Int(d.other.iso_speed.rounded()) }
        if d.other.shutter > 0 { exif.exposureTime = Double(d.other.shutter) }
        if d.other.aperture > 0 { exif.fNumber = Double(d.other.aperture) }
        if d.other.focal_len > 0 { exif.focalLength = Double(d.other.focal_len) }
        if d.other.timestamp > 0 { exif.dateTimeOriginal = exifDate(d.other.timestamp) }
        exif.lensMake = nonEmpty(cString(d.lens.LensMake))
        // The lens name from EXIF, else from the maker notes (where many RAWs keep it); focal
        // length and aperture likewise (lens corrections need all three).
        exif.lensModel = nonEmpty(cString(d.lens.Lens)) ?? nonEmpty(cString(d.lens.makernotes.Lens))
        let mn = d.lens.makernotes
        if exif.focalLength == nil, mn.CurFocal > 0, mn.CurFocal.isFinite { exif.focalLength = Double(mn.CurFocal) }
        if exif.fNumber == nil, mn.CurAp > 0, mn.CurAp.isFinite { exif.fNumber = Double(mn.CurAp) }
        if d.lens.FocalLengthIn35mmFormat > 0 { exif.focalLengthIn35mm = Int(d.lens.FocalLengthIn35mmFormat) }

        return LibRawUnpacked(
            rawWidth: rawWidth, rawHeight: rawHeight, samplesPerPixel: spp, pixels: pixels,
            visible: visible, cfa: cfa, blackPerSite: blackPerSite, maximum: Double(d.color.maximum),
            xyzToCamera: xyzToCamera, cameraToLinearSRGB: cameraToLinearSRGB, cameraMultipliers: multipliers, daylightMultipliers: daylight, flip: Int(s.flip), exif: exif,
            formatName: libRawFormatName(handle))
    }

    /// Turns a LibRaw return code into a `DecodeError` naming the file and the reason.
    private static func check(_ rc: Int32, path: String, stage: String) throws(DecodeError) {
        guard rc != 0 else { return }
        let message = String(cString: libraw_strerror(rc))
        switch rc {
        case LIBRAW_FILE_UNSUPPORTED.rawValue:
            throw .notRaw(path: path, detail: "LibRaw does not recognise it")
        case LIBRAW_IO_ERROR.rawValue:
            throw .truncated(path: path, detail: "read past end of file during \(stage)")
        case LIBRAW_DATA_ERROR.rawValue:
            throw .corrupt(path: path, detail: "\(message) during \(stage)")
        case LIBRAW_NOT_IMPLEMENTED.rawValue:
            throw .unsupported(path: path, reason: "compression not implemented in LibRaw")
        case LIBRAW_UNSUFFICIENT_MEMORY.rawValue, LIBRAW_TOO_BIG.rawValue, LIBRAW_MEMPOOL_OVERFLOW.rawValue:
            throw .corrupt(path: path, detail: "image too large (\(message))")
        case LIBRAW_REQUEST_FOR_NONEXISTENT_IMAGE.rawValue:
            throw .corrupt(path: path, detail: "no image in file")
        default:
            if rc > 0 { throw .unreadable(path: path, reason: String(cString: strerror(rc))) }
            throw .corrupt(path: path, detail: "\(message) during \(stage)")
        }
    }

    private static func libRawFormatName(_ h: UnsafeMutablePointer<libraw_data_t>) -> String {
        if h.pointee.idata.dng_version != 0 { return "DNG" }
        let make = cString(h.pointee.idata.make)
        return make.isEmpty ? "RAW" : "\(make) RAW"
    }

    static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let n = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<n], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
    }

    private static func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }

    /// Seconds since the epoch → "YYYY:MM:DD HH:MM:SS" (LibRaw's timestamp is local camera time read as UTC).
    static func exifDate(_ t: time_t) -> String {
        var time = t
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900):\(two(parts.tm_mon + 1)):\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
