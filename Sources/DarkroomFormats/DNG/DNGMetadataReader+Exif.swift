import DarkroomCore

extension DNGMetadataReader {
    /// EXIF facts: TIFF tags of IFD0, the EXIF IFD (falling back to IFD0, where TIFF/EP puts
    /// them), the GPS IFD and the XMP packet (tag 700).
    package static func readExif(ifd0: TIFFIFD, _ tags: inout LenientTags) -> ExifInfo {
        var x = ExifInfo()
        let exif = ifd0.exifIFD
        // The EXIF IFD first, then IFD0.
        func pick<T>(_ tags: inout LenientTags, _ body: (TIFFIFD) throws(TIFFError) -> T?) -> T? {
            if let exif, let v = tags.get({ try body(exif) }) { return v }
            return tags.get { try body(ifd0) }
        }
        x.make = tags.get { try ifd0.string(TIFFTag.make) }
        x.model = tags.get { try ifd0.string(TIFFTag.model) }
        x.software = tags.get { try ifd0.string(TIFFTag.software) }
        x.artist = tags.get { try ifd0.string(TIFFTag.artist) }
        x.copyright = tags.get { try ifd0.string(TIFFTag.copyright) }
        x.lensMake = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.lensMake) }
        x.lensModel = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.lensModel) }
        x.imageUniqueID = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.imageUniqueID) }
        x.bodySerialNumber = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.bodySerialNumber) }
            ?? tags.get { try ifd0.string(TIFFTag.cameraSerialNumber) }
        x.dateTimeOriginal = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.dateTimeOriginal) }
        x.offsetTimeOriginal = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.offsetTimeOriginal) }
        x.subSecTimeOriginal = pick(&tags) { i throws(TIFFError) in try i.string(TIFFTag.subSecTimeOriginal) }
        x.exposureTime = pick(&tags) { i throws(TIFFError) in try i.double(TIFFTag.exposureTime) }
        x.fNumber = pick(&tags) { i throws(TIFFError) in try i.double(TIFFTag.fNumber) }
        x.isoSpeed = pick(&tags) { i throws(TIFFError) in try i.int(TIFFTag.isoSpeedRatings) }
        x.focalLength = pick(&tags) { i throws(TIFFError) in try i.double(TIFFTag.focalLength) }
        x.focalLengthIn35mm = pick(&tags) { i throws(TIFFError) in try i.int(TIFFTag.focalLengthIn35mmFilm) }
        x.exposureBias = pick(&tags) { i throws(TIFFError) in try i.double(TIFFTag.exposureBiasValue) }
        x.flash = pick(&tags) { i throws(TIFFError) in try i.int(TIFFTag.flash) }
        if let gps = ifd0.gpsIFD { x.gps = readGPS(gps, &tags) }
        x.xmp = tags.get { try ifd0.bytes(TIFFTag.xmp).map { String(decoding: $0, as: UTF8.self) } }
        return x
    }

    /// The GPS IFD (EXIF 2.3 §4.6.6): degrees-minutes-seconds to signed decimal degrees.
    package static func readGPS(_ gps: TIFFIFD, _ tags: inout LenientTags) -> GPSInfo? {
        func degrees(_ tag: UInt16, _ refTag: UInt16, negative: String, _ tags: inout LenientTags) -> Double? {
            guard let dms = tags.get({ try gps.doubles(tag) }), !dms.isEmpty else { return nil }
            var v = dms[0]
            if dms.count > 1 { v += dms[1] / 60 }
            if dms.count > 2 { v += dms[2] / 3600 }
            let ref = tags.get { try gps.string(refTag) }
            return ref?.uppercased() == negative ? -v : v
        }
        var g = GPSInfo()
        g.latitude = degrees(TIFFTag.GPS.gpsLatitude, TIFFTag.GPS.gpsLatitudeRef, negative: "S", &tags)
        g.longitude = degrees(TIFFTag.GPS.gpsLongitude, TIFFTag.GPS.gpsLongitudeRef, negative: "W", &tags)
        if let alt = tags.get({ try gps.double(TIFFTag.GPS.gpsAltitude) }) {
            let below = tags.get { try gps.uint(TIFFTag.GPS.gpsAltitudeRef) } == 1
            g.altitude = below ? -alt : alt
        }
        if let t = tags.get({ try gps.doubles(TIFFTag.GPS.gpsTimeStamp) }), t.count == 3, t.allSatisfy({ $0 >= 0 && $0 < 100 }) {
            func two(_ v: Double) -> String { let i = Int(v); return i < 10 ? "0\(i)" : "\(i)" }
            g.timeStamp = "\(two(t[0])):\(two(t[1])):\(two(t[2]))"
        }
        g.dateStamp = tags.get { try gps.string(TIFFTag.GPS.gpsDateStamp) }
        return g == GPSInfo() ? nil : g
    }

    /// Reduced-resolution images (NewSubFileType 1) anywhere in the IFD tree, JPEG or
    /// uncompressed, whose data lies inside the file.
    package static func readPreviews(_ file: TIFFFile, _ tags: inout LenientTags) -> [EmbeddedPreview] {
        var out: [EmbeddedPreview] = []
        for ifd in file.allImageIFDs {
            guard tags.get({ try ifd.uint(TIFFTag.newSubFileType) }) == 1 else { continue }
            let w = tags.get { try ifd.int(TIFFTag.imageWidth) } ?? 0
            let h = tags.get { try ifd.int(TIFFTag.imageLength) } ?? 0
            let compression = tags.get { try ifd.int(TIFFTag.compression) } ?? 1
            var offset: Int? = nil, length = 0
            if let o = tags.get({ try ifd.int(TIFFTag.jpegInterchangeFormat) }),
               let n = tags.get({ try ifd.int(TIFFTag.jpegInterchangeFormatLength) }) {
                offset = o; length = n
            } else if let os = tags.get({ try ifd.uints(TIFFTag.stripOffsets) }), os.count == 1,
                      let ns = tags.get({ try ifd.uints(TIFFTag.stripByteCounts) }), ns.count == 1 {
                offset = Int(os[0]); length = Int(ns[0])
            } else if ifd.contains(TIFFTag.stripOffsets) || ifd.contains(TIFFTag.tileOffsets) {
                tags.warn("\(ifd.name): preview in several strips or tiles not listed")
                continue
            }
            guard let offset else { continue }
            do { try file.reader.check(offset, length) } catch {
                tags.warn("\(ifd.name): preview data (\(length) bytes at \(offset)) outside the file"); continue
            }
            let kind = compression == 6 || compression == 7 ? "jpeg" : "uncompressed"
            out.append(EmbeddedPreview(offset: file.reader.base + offset, length: length, width: w, height: h, kind: kind))
        }
        return out
    }
}
