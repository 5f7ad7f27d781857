// libpng 1.6 (Debian libpng-dev) behind one call. libpng reports errors by longjmp, which must
// never cross Swift frames, so the whole read runs here, under one setjmp, and returns a status.
#ifndef DARKROOM_CPNG_SHIM_H
#define DARKROOM_CPNG_SHIM_H
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    DR_PNG_OK = 0,
    DR_PNG_LIBPNG_ERROR = 1,   // libpng's message is in `message`
    DR_PNG_TRUNCATED = 2,      // the data ended at byte `at`, `needed` more bytes were asked for
    DR_PNG_TOO_LARGE = 3,      // width x height would decode to more than the caller's limit
    DR_PNG_NO_MEMORY = 4
};

/// What `dr_png_decode` read. Samples are unpacked to one byte each below 8 bits (values not
/// scaled), kept big-endian at 16 bits, palette indices are not expanded, and no gamma, colour
/// or tRNS transformation is applied.
typedef struct dr_png_result {
    int status;
    uint32_t width, height;
    int bit_depth, color_type, interlace;
    int channels;            // samples per pixel as stored (1 grey/palette, 2 grey+alpha, 3 RGB, 4 RGBA)
    size_t row_bytes;        // bytes per row in `pixels`
    unsigned char *pixels;   // row_bytes * height bytes; release with dr_png_free
    int palette_entries;
    unsigned char palette[768];
    int palette_alpha_entries;
    unsigned char palette_alpha[256];
    size_t at, needed;
    char message[200];
    char warning[200];       // libpng's first warning (it explains "Invalid IHDR data")
} dr_png_result;

typedef struct dr_png_source {
    const unsigned char *data;
    size_t size, position;
    dr_png_result *result;
} dr_png_source;

static void dr_png_read_bytes(png_structp png, png_bytep out, size_t length) {
    dr_png_source *s = (dr_png_source *)png_get_io_ptr(png);
    if (length > s->size - s->position) {
        s->result->status = DR_PNG_TRUNCATED;
        s->result->at = s->position;
        s->result->needed = length - (s->size - s->position);
        png_error(png, "truncated");
    }
    memcpy(out, s->data + s->position, length);
    s->position += length;
}

static void dr_png_on_error(png_structp png, png_const_charp message) {
    dr_png_source *s = (dr_png_source *)png_get_error_ptr(png);
    if (s->result->status == DR_PNG_OK) {
        s->result->status = DR_PNG_LIBPNG_ERROR;
        strncpy(s->result->message, message ? message : "unknown error", sizeof s->result->message - 1);
    }
    png_longjmp(png, 1);
}

static void dr_png_on_warning(png_structp png, png_const_charp message) {
    dr_png_source *s = (dr_png_source *)png_get_error_ptr(png);
    if (s->result->warning[0] == 0 && message)
        strncpy(s->result->warning, message, sizeof s->result->warning - 1);
}

static inline void dr_png_free(dr_png_result *r) { free(r->pixels); r->pixels = NULL; }

/// Decodes a whole PNG held in memory. Refuses, before allocating any pixel memory, an image whose
/// width x height x 8 exceeds `max_decoded_bytes`. CRC errors in any chunk are fatal; the chunks
/// after the image data are read up to IEND. Returns `r->status`.
static inline int dr_png_decode(const unsigned char *data, size_t size, size_t max_decoded_bytes, dr_png_result *r) {
    memset(r, 0, sizeof *r);
    dr_png_source source = { data, size, 0, r };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, dr_png_on_error, dr_png_on_warning);
    if (!png) return r->status = DR_PNG_NO_MEMORY;
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_read_struct(&png, NULL, NULL); return r->status = DR_PNG_NO_MEMORY; }
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels); free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return r->status;
    }
    png_set_read_fn(png, &source, dr_png_read_bytes);
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);   // our own bound below decides
    png_read_info(png, info);
    png_uint_32 width = 0, height = 0;
    int depth = 0, colour = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &colour, &interlace, NULL, NULL);
    r->width = width; r->height = height; r->bit_depth = depth; r->color_type = colour; r->interlace = interlace;
    if (width == 0 || height == 0 || width > max_decoded_bytes / 8 || height > max_decoded_bytes / ((size_t)width * 8)) {
        png_destroy_read_struct(&png, &info, NULL);
        return r->status = DR_PNG_TOO_LARGE;
    }
    if (depth < 8) png_set_packing(png);
    if (interlace != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    r->channels = png_get_channels(png, info);
    r->row_bytes = png_get_rowbytes(png, info);
    if (colour == PNG_COLOR_TYPE_PALETTE) {
        png_colorp plte = NULL;
        int n = 0;
        if (png_get_PLTE(png, info, &plte, &n) && plte && n > 0 && n <= 256) {
            for (int i = 0; i < n; i++) {
                r->palette[3 * i] = plte[i].red; r->palette[3 * i + 1] = plte[i].green; r->palette[3 * i + 2] = plte[i].blue;
            }
            r->palette_entries = n;
        }
        png_bytep alpha = NULL;
        int na = 0;
        if (png_get_tRNS(png, info, &alpha, &na, NULL) && alpha && na > 0 && na <= 256) {
            memcpy(r->palette_alpha, alpha, (size_t)na);
            r->palette_alpha_entries = na;
        }
    }
    if (r->row_bytes == 0 || r->row_bytes > max_decoded_bytes / height) {
        png_destroy_read_struct(&png, &info, NULL);
        return r->status = DR_PNG_TOO_LARGE;
    }
    pixels = (unsigned char *)malloc(r->row_bytes * height);
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (!pixels || !rows) {
        free(pixels); free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return r->status = DR_PNG_NO_MEMORY;
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + (size_t)y * r->row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    r->pixels = pixels;
    png_destroy_read_struct(&png, &info, NULL);
    return r->status = DR_PNG_OK;
}
#endif
