import CJXL
import Foundation

/// Lossless JPEG XL codestreams for DNG 1.7 raw tiles (Compression 52546), with Debian's libjxl 0.7
/// encoder: one bare codestream (no container) per tile, 16-bit unsigned samples
/// (`bits_per_sample` 16, as the DNG SDK writes for 16-bit data, so a decoder returns the stored
/// values exactly), 1 channel for a CFA mosaic or 3 for LinearRaw, linear colour encoding,
/// `JxlEncoderSetFrameLossless`, the given effort (1 fastest … 9 smallest; libjxl's default is 7).
/// One encoder per call and libjxl's own single-threaded path, so output never depends on the
/// thread count; callers parallelise across tiles.
enum JXLTileEncoder {
    /// Why a tile could not be encoded (libjxl reported an error at `step`).
    struct Failure: Error, CustomStringConvertible {
        let step: String
        var description: String { "libjxl encoder: \(step) failed" }
    }

    static func encodeLossless(_ samples: UnsafeBufferPointer<UInt16>, width: Int, height: Int, channels: Int,
                               effort: Int) throws(Failure) -> [UInt8] {
        guard width > 0, height > 0, channels == 1 || channels == 3, samples.count >= width * height * channels,
              let base = samples.baseAddress else { throw Failure(step: "tile size") }
        guard let enc = JxlEncoderCreate(nil) else { throw Failure(step: "JxlEncoderCreate") }
        defer { JxlEncoderDestroy(enc) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width); info.ysize = UInt32(height)
        info.bits_per_sample = 16; info.exponent_bits_per_sample = 0
        info.num_color_channels = UInt32(channels); info.uses_original_profile = 1
        guard JxlEncoderSetBasicInfo(enc, &info) == JXL_ENC_SUCCESS else { throw Failure(step: "JxlEncoderSetBasicInfo") }
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToLinearSRGB(&colour, channels == 1 ? 1 : 0)
        guard JxlEncoderSetColorEncoding(enc, &colour) == JXL_ENC_SUCCESS else { throw Failure(step: "JxlEncoderSetColorEncoding") }
        guard let settings = JxlEncoderFrameSettingsCreate(enc, nil) else { throw Failure(step: "JxlEncoderFrameSettingsCreate") }
        guard JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS,
              JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(min(max(effort, 1), 9))) == JXL_ENC_SUCCESS
        else { throw Failure(step: "frame settings") }
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN, align: 0)
        guard JxlEncoderAddImageFrame(settings, &format, base, width * height * channels * 2) == JXL_ENC_SUCCESS else {
            throw Failure(step: "JxlEncoderAddImageFrame")
        }
        JxlEncoderCloseInput(enc)
        var out = [UInt8](repeating: 0, count: max(4096, width * height * channels / 2))
        var used = 0
        while true {
            let status: JxlEncoderStatus = out.withUnsafeMutableBufferPointer { buf in
                var next: UnsafeMutablePointer<UInt8>? = buf.baseAddress! + used
                var available = buf.count - used
                let s = JxlEncoderProcessOutput(enc, &next, &available)
                used = buf.count - available
                return s
            }
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw Failure(step: "JxlEncoderProcessOutput") }
            out.append(contentsOf: [UInt8](repeating: 0, count: out.count))
        }
        out.removeSubrange(used...)
        return out
    }
}
