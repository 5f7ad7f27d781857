import CHeif

/// Shared glue for libheif 1.15: one-time `heif_init`, error checking, writing to memory.
enum LibHeif {
    /// `heif_init` is reference counted and loads plugins; Darkroom keeps one reference for the
    /// process lifetime.
    static let initialized: Bool = { heif_init(nil).code == heif_error_Ok }()

    static func check(_ err: heif_error, _ call: String, format: String = "HEIF") throws(EncodeError) {
        guard err.code != heif_error_Ok else { return }
        let msg = err.message.map { String(cString: $0) } ?? "error \(err.code.rawValue)/\(err.subcode.rawValue)"
        throw .library(format: format, call: call, message: msg)
    }

    /// The file bytes of a context (`heif_context_write` into a growing buffer).
    static func write(_ ctx: OpaquePointer) throws(EncodeError) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            if let userdata, let data {
                let s = Unmanaged<Sink>.fromOpaque(userdata).takeUnretainedValue()
                s.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
            }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: LibHeif.okMessage)
        })
        let err = withExtendedLifetime(sink) {
            heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque())
        }
        try check(err, "heif_context_write")
        return sink.bytes
    }

    /// A static C string for successful `heif_error`s returned from our callbacks.
    nonisolated(unsafe) static let okMessage: UnsafePointer<CChar> = {
        UnsafeRawPointer(("Success" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }()

    /// IDs of the context's top-level images.
    static func topLevelIDs(_ ctx: OpaquePointer) -> [heif_item_id] {
        let n = heif_context_get_number_of_top_level_images(ctx)
        guard n > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: Int(n))
        let got = heif_context_get_list_of_top_level_image_IDs(ctx, &ids, n)
        return Array(ids.prefix(Int(max(got, 0))))
    }
}
