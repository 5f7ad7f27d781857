// OpenEXR 3.1's C API (Debian libopenexr-dev, <openexr.h>) behind two calls: write an RGB
// scanline image into memory, and read one back (the tests' independent reader). Errors come
// back as a status and the library's message; nothing here aborts.
#ifndef DARKROOM_COPENEXR_SHIM_H
#define DARKROOM_COPENEXR_SHIM_H
#include <openexr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// A growing in-memory file: what the library writes lands here (gaps zero-filled).
typedef struct dr_exr_buffer {
    unsigned char *data;
    uint64_t size, capacity;
    int failed;           // allocation failed
    char message[256];    // the library's last error message
} dr_exr_buffer;

static inline void dr_exr_buffer_free(dr_exr_buffer *b) { free(b->data); b->data = NULL; b->size = b->capacity = 0; }

static int64_t dr_exr_write_fn(exr_const_context_t ctxt, void *userdata, const void *buffer, uint64_t sz,
                               uint64_t offset, exr_stream_error_func_ptr_t error_cb) {
    (void)ctxt; (void)error_cb;
    dr_exr_buffer *b = (dr_exr_buffer *)userdata;
    if (offset > UINT64_MAX - sz) { b->failed = 1; return -1; }
    uint64_t end = offset + sz;
    if (end > b->capacity) {
        uint64_t cap = b->capacity ? b->capacity : 65536;
        while (cap < end) { if (cap > UINT64_MAX / 2) { b->failed = 1; return -1; } cap *= 2; }
        unsigned char *p = (unsigned char *)realloc(b->data, (size_t)cap);
        if (!p) { b->failed = 1; return -1; }
        memset(p + b->capacity, 0, (size_t)(cap - b->capacity));
        b->data = p; b->capacity = cap;
    }
    memcpy(b->data + offset, buffer, (size_t)sz);
    if (end > b->size) b->size = end;
    return (int64_t)sz;
}

static void dr_exr_on_error(exr_const_context_t ctxt, exr_result_t code, const char *msg) {
    void *ud = NULL;
    if (exr_get_user_data(ctxt, &ud) == EXR_ERR_SUCCESS && ud) {
        dr_exr_buffer *b = (dr_exr_buffer *)ud;
        if (b->message[0] == 0) {
            strncpy(b->message, msg ? msg : exr_get_error_code_as_string(code), sizeof b->message - 1);
        }
    }
}

/// Writes `width` x `height` interleaved RGB samples (`rgb`, float32 when `half` is 0, else
/// IEEE half as uint16) as a single-part scanline OpenEXR with channels R, G, B of that type,
/// ZIP compression, and the `chromaticities` attribute `chroma` (red x, y, green x, y, blue x, y,
/// white x, y). Returns EXR_ERR_SUCCESS (0) or the library's code (message in `out->message`).
static inline int dr_exr_write_rgb(const void *rgb, int32_t width, int32_t height, int half,
                                   const float chroma[8], dr_exr_buffer *out) {
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = out;
    init.write_fn = dr_exr_write_fn;
    init.error_handler_fn = dr_exr_on_error;
    exr_context_t f = NULL;
    exr_result_t rv = exr_start_write(&f, "darkroom.exr", EXR_WRITE_FILE_DIRECTLY, &init);
    if (rv != EXR_ERR_SUCCESS) return rv;
    int part = 0;
    exr_pixel_type_t type = half ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
    size_t bytes = half ? 2 : 4;
    exr_attr_chromaticities_t c = { chroma[0], chroma[1], chroma[2], chroma[3], chroma[4], chroma[5], chroma[6], chroma[7] };
    if ((rv = exr_add_part(f, "rgb", EXR_STORAGE_SCANLINE, &part)) ||
        (rv = exr_initialize_required_attr_simple(f, part, width, height, EXR_COMPRESSION_ZIP)) ||
        (rv = exr_add_channel(f, part, "R", type, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1)) ||
        (rv = exr_add_channel(f, part, "G", type, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1)) ||
        (rv = exr_add_channel(f, part, "B", type, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1)) ||
        (rv = exr_attr_set_chromaticities(f, part, "chromaticities", &c)) ||
        (rv = exr_write_header(f))) {
        exr_finish(&f);
        return rv;
    }
    int32_t lines = 1;
    if ((rv = exr_get_scanlines_per_chunk(f, part, &lines)) || lines < 1) { exr_finish(&f); return rv ? rv : EXR_ERR_INVALID_ARGUMENT; }
    exr_encode_pipeline_t enc;
    memset(&enc, 0, sizeof enc);
    int started = 0;
    for (int32_t y = 0; y < height && rv == EXR_ERR_SUCCESS; y += lines) {
        exr_chunk_info_t ci;
        if ((rv = exr_write_scanline_chunk_info(f, part, y, &ci))) break;
        rv = started ? exr_encoding_update(f, part, &ci, &enc) : exr_encoding_initialize(f, part, &ci, &enc);
        if (rv) break;
        for (int i = 0; i < enc.channel_count; i++) {
            exr_coding_channel_info_t *ch = &enc.channels[i];
            int k = ch->channel_name[0] == 'R' ? 0 : ch->channel_name[0] == 'G' ? 1 : 2;
            ch->encode_from_ptr = (const uint8_t *)rgb + ((size_t)(ci.start_y) * (size_t)width * 3 + (size_t)k) * bytes;
            ch->user_pixel_stride = (int32_t)(3 * bytes);
            ch->user_line_stride = (int32_t)(3 * bytes * (size_t)width);
            ch->user_data_type = (uint16_t)type;
            ch->user_bytes_per_element = (int16_t)bytes;
        }
        if (!started) { if ((rv = exr_encoding_choose_default_routines(f, part, &enc))) break; started = 1; }
        rv = exr_encoding_run(f, part, &enc);
    }
    if (started || enc.channels) exr_encoding_destroy(f, &enc);
    exr_result_t fin = exr_finish(&f);
    if (rv == EXR_ERR_SUCCESS) rv = fin;
    if (rv == EXR_ERR_SUCCESS && out->failed) rv = EXR_ERR_OUT_OF_MEMORY;
    return rv;
}

/// What `dr_exr_read_rgb` found.
typedef struct dr_exr_image {
    int32_t width, height;
    int pixel_type;          // EXR_PIXEL_HALF or EXR_PIXEL_FLOAT (of channel R)
    int has_chromaticities;
    float chroma[8];
    float *rgb;              // interleaved float32 RGB, width * height * 3; release with free
    char message[256];
} dr_exr_image;

static int64_t dr_exr_read_fn(exr_const_context_t ctxt, void *userdata, void *buffer, uint64_t sz,
                              uint64_t offset, exr_stream_error_func_ptr_t error_cb) {
    (void)ctxt; (void)error_cb;
    const dr_exr_buffer *b = (const dr_exr_buffer *)userdata;
    if (offset >= b->size) return 0;
    uint64_t n = b->size - offset < sz ? b->size - offset : sz;
    memcpy(buffer, b->data + offset, (size_t)n);
    return (int64_t)n;
}

static int64_t dr_exr_size_fn(exr_const_context_t ctxt, void *userdata) {
    (void)ctxt;
    return (int64_t)((const dr_exr_buffer *)userdata)->size;
}

/// Reads a single-part scanline RGB OpenEXR held in `in` (data/size) with the library's own
/// decoder, converting every channel to float32. For tests: an independent reader of what
/// `dr_exr_write_rgb` wrote.
static inline int dr_exr_read_rgb(dr_exr_buffer *in, dr_exr_image *img) {
    memset(img, 0, sizeof *img);
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = in;
    init.read_fn = dr_exr_read_fn;
    init.size_fn = dr_exr_size_fn;
    init.error_handler_fn = dr_exr_on_error;
    exr_context_t f = NULL;
    exr_result_t rv = exr_start_read(&f, "darkroom.exr", &init);
    if (rv) return rv;
    exr_attr_box2i_t dw;
    if ((rv = exr_get_data_window(f, 0, &dw))) { exr_finish(&f); return rv; }
    int32_t w = dw.max.x - dw.min.x + 1, h = dw.max.y - dw.min.y + 1;
    img->width = w; img->height = h;
    exr_attr_chromaticities_t c;
    if (exr_attr_get_chromaticities(f, 0, "chromaticities", &c) == EXR_ERR_SUCCESS) {
        img->has_chromaticities = 1;
        float v[8] = { c.red_x, c.red_y, c.green_x, c.green_y, c.blue_x, c.blue_y, c.white_x, c.white_y };
        memcpy(img->chroma, v, sizeof v);
    }
    const exr_attr_chlist_t *chans = NULL;
    if ((rv = exr_get_channels(f, 0, &chans))) { exr_finish(&f); return rv; }
    for (int i = 0; i < chans->num_channels; i++)
        if (chans->entries[i].name.str[0] == 'R') img->pixel_type = (int)chans->entries[i].pixel_type;
    img->rgb = (float *)calloc((size_t)w * (size_t)h * 3, sizeof(float));
    if (!img->rgb) { exr_finish(&f); return EXR_ERR_OUT_OF_MEMORY; }
    int32_t lines = 1;
    exr_get_scanlines_per_chunk(f, 0, &lines);
    exr_decode_pipeline_t dec;
    memset(&dec, 0, sizeof dec);
    int started = 0;
    for (int32_t y = dw.min.y; y <= dw.max.y && rv == EXR_ERR_SUCCESS; y += lines) {
        exr_chunk_info_t ci;
        if ((rv = exr_read_scanline_chunk_info(f, 0, y, &ci))) break;
        rv = started ? exr_decoding_update(f, 0, &ci, &dec) : exr_decoding_initialize(f, 0, &ci, &dec);
        if (rv) break;
        for (int i = 0; i < dec.channel_count; i++) {
            exr_coding_channel_info_t *ch = &dec.channels[i];
            int k = ch->channel_name[0] == 'R' ? 0 : ch->channel_name[0] == 'G' ? 1 : 2;
            ch->decode_to_ptr = (uint8_t *)(img->rgb + ((size_t)(ci.start_y - dw.min.y) * (size_t)w * 3 + (size_t)k));
            ch->user_pixel_stride = 12;
            ch->user_line_stride = 12 * w;
            ch->user_data_type = EXR_PIXEL_FLOAT;
            ch->user_bytes_per_element = 4;
        }
        if (!started) { if ((rv = exr_decoding_choose_default_routines(f, 0, &dec))) break; started = 1; }
        rv = exr_decoding_run(f, 0, &dec);
    }
    if (started || dec.channels) exr_decoding_destroy(f, &dec);
    exr_finish(&f);
    if (rv) { strncpy(img->message, in->message, sizeof img->message - 1); }
    return rv;
}
#endif
