import DarkroomCore
/// TIFF, TIFF/EP, EXIF and DNG tag numbers, named as their specifications spell them
/// (DNG 1.7 chapter 4, EXIF 2.3, TIFF 6.0). GPS tags live in the GPS IFD's own number space.
public enum TIFFTag {
    public static let newSubFileType: UInt16 = 254
    public static let imageWidth: UInt16 = 256
    public static let imageLength: UInt16 = 257
    public static let bitsPerSample: UInt16 = 258
    public static let compression: UInt16 = 259
    public static let photometricInterpretation: UInt16 = 262
    public static let imageDescription: UInt16 = 270
    public static let make: UInt16 = 271
    public static let model: UInt16 = 272
    public static let stripOffsets: UInt16 = 273
    public static let orientation: UInt16 = 274
    public static let samplesPerPixel: UInt16 = 277
    public static let rowsPerStrip: UInt16 = 278
    public static let stripByteCounts: UInt16 = 279
    public static let xResolution: UInt16 = 282
    public static let yResolution: UInt16 = 283
    public static let planarConfiguration: UInt16 = 284
    public static let resolutionUnit: UInt16 = 296
    public static let software: UInt16 = 305
    public static let dateTime: UInt16 = 306
    public static let artist: UInt16 = 315
    public static let tileWidth: UInt16 = 322
    public static let tileLength: UInt16 = 323
    public static let tileOffsets: UInt16 = 324
    public static let tileByteCounts: UInt16 = 325
    public static let subIFDs: UInt16 = 330
    public static let sampleFormat: UInt16 = 339
    public static let jpegInterchangeFormat: UInt16 = 513
    public static let jpegInterchangeFormatLength: UInt16 = 514
    public static let xmp: UInt16 = 700
    public static let cfaRepeatPatternDim: UInt16 = 33421
    public static let cfaPattern: UInt16 = 33422
    public static let copyright: UInt16 = 33432
    public static let exposureTime: UInt16 = 33434
    public static let fNumber: UInt16 = 33437
    public static let exifIFD: UInt16 = 34665
    public static let gpsIFD: UInt16 = 34853
    public static let isoSpeedRatings: UInt16 = 34855
    public static let dateTimeOriginal: UInt16 = 36867
    public static let offsetTimeOriginal: UInt16 = 36881
    public static let exposureBiasValue: UInt16 = 37380
    public static let flash: UInt16 = 37385
    public static let focalLength: UInt16 = 37386
    public static let subSecTimeOriginal: UInt16 = 37521
    public static let focalLengthIn35mmFilm: UInt16 = 41989
    public static let imageUniqueID: UInt16 = 42016
    public static let bodySerialNumber: UInt16 = 42033
    public static let lensMake: UInt16 = 42035
    public static let lensModel: UInt16 = 42036
    public static let dngVersion: UInt16 = 50706
    public static let dngBackwardVersion: UInt16 = 50707
    public static let uniqueCameraModel: UInt16 = 50708
    public static let localizedCameraModel: UInt16 = 50709
    public static let cfaPlaneColor: UInt16 = 50710
    public static let cfaLayout: UInt16 = 50711
    public static let linearizationTable: UInt16 = 50712
    public static let blackLevelRepeatDim: UInt16 = 50713
    public static let blackLevel: UInt16 = 50714
    public static let blackLevelDeltaH: UInt16 = 50715
    public static let blackLevelDeltaV: UInt16 = 50716
    public static let whiteLevel: UInt16 = 50717
    public static let defaultScale: UInt16 = 50718
    public static let defaultCropOrigin: UInt16 = 50719
    public static let defaultCropSize: UInt16 = 50720
    public static let colorMatrix1: UInt16 = 50721
    public static let colorMatrix2: UInt16 = 50722
    public static let cameraCalibration1: UInt16 = 50723
    public static let cameraCalibration2: UInt16 = 50724
    public static let reductionMatrix1: UInt16 = 50725
    public static let reductionMatrix2: UInt16 = 50726
    public static let analogBalance: UInt16 = 50727
    public static let asShotNeutral: UInt16 = 50728
    public static let asShotWhiteXY: UInt16 = 50729
    public static let baselineExposure: UInt16 = 50730
    public static let baselineNoise: UInt16 = 50731
    public static let baselineSharpness: UInt16 = 50732
    public static let bayerGreenSplit: UInt16 = 50733
    public static let linearResponseLimit: UInt16 = 50734
    public static let cameraSerialNumber: UInt16 = 50735
    public static let lensInfo: UInt16 = 50736
    public static let makerNoteSafety: UInt16 = 50741
    public static let calibrationIlluminant1: UInt16 = 50778
    public static let calibrationIlluminant2: UInt16 = 50779
    public static let bestQualityScale: UInt16 = 50780
    public static let rawDataUniqueID: UInt16 = 50781
    public static let originalRawFileName: UInt16 = 50827
    public static let activeArea: UInt16 = 50829
    public static let maskedAreas: UInt16 = 50830
    public static let asShotICCProfile: UInt16 = 50831
    public static let cameraCalibrationSignature: UInt16 = 50931
    public static let profileCalibrationSignature: UInt16 = 50932
    public static let extraCameraProfiles: UInt16 = 50933
    public static let asShotProfileName: UInt16 = 50934
    public static let noiseReductionApplied: UInt16 = 50935
    public static let profileName: UInt16 = 50936
    public static let profileHueSatMapDims: UInt16 = 50937
    public static let profileHueSatMapData1: UInt16 = 50938
    public static let profileHueSatMapData2: UInt16 = 50939
    public static let profileToneCurve: UInt16 = 50940
    public static let profileEmbedPolicy: UInt16 = 50941
    public static let profileCopyright: UInt16 = 50942
    public static let forwardMatrix1: UInt16 = 50964
    public static let forwardMatrix2: UInt16 = 50965
    public static let previewApplicationName: UInt16 = 50966
    public static let previewColorSpace: UInt16 = 50970
    public static let rawImageDigest: UInt16 = 50972
    public static let profileLookTableDims: UInt16 = 50981
    public static let profileLookTableData: UInt16 = 50982
    public static let opcodeList1: UInt16 = 51008
    public static let opcodeList2: UInt16 = 51009
    public static let opcodeList3: UInt16 = 51022
    public static let noiseProfile: UInt16 = 51041
    public static let profileHueSatMapEncoding: UInt16 = 51107
    public static let profileLookTableEncoding: UInt16 = 51108
    public static let baselineExposureOffset: UInt16 = 51109
    public static let defaultBlackRender: UInt16 = 51110
    public static let newRawImageDigest: UInt16 = 51111
    /// DNG 1.2 / 1.7 (raw IFD): field interleaving and the JPEG XL encoder settings.
    public static let rowInterleaveFactor: UInt16 = 50975
    public static let columnInterleaveFactor: UInt16 = 52547
    public static let jxlDistance: UInt16 = 52553
    public static let jxlEffort: UInt16 = 52554
    public static let jxlDecodeSpeed: UInt16 = 52555
    /// DNG 1.6 (Raw IFD; read from IFD 0 as well, as the DNG SDK does).
    public static let profileGainTableMap: UInt16 = 52525
    public static let calibrationIlluminant3: UInt16 = 52529
    public static let cameraCalibration3: UInt16 = 52530
    public static let colorMatrix3: UInt16 = 52531
    public static let forwardMatrix3: UInt16 = 52532
    public static let illuminantData1: UInt16 = 52533
    public static let illuminantData2: UInt16 = 52534
    public static let illuminantData3: UInt16 = 52535
    public static let profileHueSatMapData3: UInt16 = 52537
    public static let reductionMatrix3: UInt16 = 52538
    /// DNG 1.7 (IFD 0 or a camera profile IFD).
    public static let profileGainTableMap2: UInt16 = 52544

    /// Tags of the GPS IFD (EXIF 2.3 §4.6.6).
    public enum GPS {
        public static let gpsLatitudeRef: UInt16 = 1
        public static let gpsLatitude: UInt16 = 2
        public static let gpsLongitudeRef: UInt16 = 3
        public static let gpsLongitude: UInt16 = 4
        public static let gpsAltitudeRef: UInt16 = 5
        public static let gpsAltitude: UInt16 = 6
        public static let gpsTimeStamp: UInt16 = 7
        public static let gpsDateStamp: UInt16 = 29
    }

    /// The spec name of a (non-GPS) tag, or "Tag<n>" when unknown.
    public static func name(_ tag: UInt16) -> String { names[tag] ?? "Tag\(tag)" }

    package static let names: [UInt16: String] = [
        254: "NewSubFileType",
        256: "ImageWidth",
        257: "ImageLength",
        258: "BitsPerSample",
        259: "Compression",
        262: "PhotometricInterpretation",
        270: "ImageDescription",
        271: "Make",
        272: "Model",
        273: "StripOffsets",
        274: "Orientation",
        277: "SamplesPerPixel",
        278: "RowsPerStrip",
        279: "StripByteCounts",
        282: "XResolution",
        283: "YResolution",
        284: "PlanarConfiguration",
        296: "ResolutionUnit",
        305: "Software",
        306: "DateTime",
        315: "Artist",
        322: "TileWidth",
        323: "TileLength",
        324: "TileOffsets",
        325: "TileByteCounts",
        330: "SubIFDs",
        339: "SampleFormat",
        513: "JPEGInterchangeFormat",
        514: "JPEGInterchangeFormatLength",
        700: "XMP",
        33421: "CFARepeatPatternDim",
        33422: "CFAPattern",
        33432: "Copyright",
        33434: "ExposureTime",
        33437: "FNumber",
        34665: "ExifIFD",
        34853: "GPSIFD",
        34855: "ISOSpeedRatings",
        36867: "DateTimeOriginal",
        36881: "OffsetTimeOriginal",
        37380: "ExposureBiasValue",
        37385: "Flash",
        37386: "FocalLength",
        37521: "SubSecTimeOriginal",
        41989: "FocalLengthIn35mmFilm",
        42016: "ImageUniqueID",
        42033: "BodySerialNumber",
        42035: "LensMake",
        42036: "LensModel",
        50706: "DNGVersion",
        50707: "DNGBackwardVersion",
        50708: "UniqueCameraModel",
        50709: "LocalizedCameraModel",
        50710: "CFAPlaneColor",
        50711: "CFALayout",
        50712: "LinearizationTable",
        50713: "BlackLevelRepeatDim",
        50714: "BlackLevel",
        50715: "BlackLevelDeltaH",
        50716: "BlackLevelDeltaV",
        50717: "WhiteLevel",
        50718: "DefaultScale",
        50719: "DefaultCropOrigin",
        50720: "DefaultCropSize",
        50721: "ColorMatrix1",
        50722: "ColorMatrix2",
        50723: "CameraCalibration1",
        50724: "CameraCalibration2",
        50725: "ReductionMatrix1",
        50726: "ReductionMatrix2",
        50727: "AnalogBalance",
        50728: "AsShotNeutral",
        50729: "AsShotWhiteXY",
        50730: "BaselineExposure",
        50731: "BaselineNoise",
        50732: "BaselineSharpness",
        50733: "BayerGreenSplit",
        50734: "LinearResponseLimit",
        50735: "CameraSerialNumber",
        50736: "LensInfo",
        50741: "MakerNoteSafety",
        50778: "CalibrationIlluminant1",
        50779: "CalibrationIlluminant2",
        50780: "BestQualityScale",
        50781: "RawDataUniqueID",
        50827: "OriginalRawFileName",
        50829: "ActiveArea",
        50830: "MaskedAreas",
        50831: "AsShotICCProfile",
        50931: "CameraCalibrationSignature",
        50932: "ProfileCalibrationSignature",
        50933: "ExtraCameraProfiles",
        50934: "AsShotProfileName",
        50935: "NoiseReductionApplied",
        50936: "ProfileName",
        50937: "ProfileHueSatMapDims",
        50938: "ProfileHueSatMapData1",
        50939: "ProfileHueSatMapData2",
        50940: "ProfileToneCurve",
        50941: "ProfileEmbedPolicy",
        50942: "ProfileCopyright",
        50964: "ForwardMatrix1",
        50965: "ForwardMatrix2",
        50966: "PreviewApplicationName",
        50970: "PreviewColorSpace",
        50972: "RawImageDigest",
        50981: "ProfileLookTableDims",
        50982: "ProfileLookTableData",
        51008: "OpcodeList1",
        51009: "OpcodeList2",
        51022: "OpcodeList3",
        51041: "NoiseProfile",
        51107: "ProfileHueSatMapEncoding",
        51108: "ProfileLookTableEncoding",
        51109: "BaselineExposureOffset",
        51110: "DefaultBlackRender",
        51111: "NewRawImageDigest",
        52525: "ProfileGainTableMap",
        52529: "CalibrationIlluminant3",
        52530: "CameraCalibration3",
        52531: "ColorMatrix3",
        52532: "ForwardMatrix3",
        52533: "IlluminantData1",
        52534: "IlluminantData2",
        52535: "IlluminantData3",
        52537: "ProfileHueSatMapData3",
        52538: "ReductionMatrix3",
        52544: "ProfileGainTableMap2",
    ]
}
