#ifndef DARKROOM_CSHIMS_H
#define DARKROOM_CSHIMS_H
#include <stddef.h>

/// Installs libtiff error/warning handlers that copy the last message into a
/// thread-local buffer instead of printing to stderr. Idempotent.
void dr_tiff_install_handlers(void);
/// The last libtiff error on this thread ("" if none); cleared by dr_tiff_clear_error.
const char *dr_tiff_last_error(void);
void dr_tiff_clear_error(void);

/// Installs an lcms2 log handler that records the last error on this thread.
void dr_lcms_install_handler(void);
const char *dr_lcms_last_error(void);


/// 1 when the CPU and OS support x86-64-v3 (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE, with YMM
/// state saved), which a default build of DarkroomCore's kernels needs; always 1 off x86-64.
int dr_cpu_has_x86_64_v3(void);

/// The git commit this binary was built from: `DARKROOM_COMMIT` in build_info.h, which `make`
/// writes before building (Makefile, `build-info`); "unknown" when the file is absent (a plain
/// `swift build`, a source tree without git).
const char *dr_build_commit(void);

/// `imgdata.color.cblack[index]` (Swift cannot import the 4104-element array); 0 when out of range.
unsigned dr_libraw_cblack(const void *libraw_data, unsigned index);

// encode helpers (Sources/CShims/encode_shims.c): libtiff on memory and typed TIFFSetField/GetField.
struct tiff;
/// Opens a TIFF on memory: read-only over `data`/`size` (not copied, must outlive the TIFF) when
/// `writable` is 0, else an empty growable buffer. `*state` must be freed with
/// dr_enc_tiff_memory_free after TIFFClose.
struct tiff *dr_enc_tiff_open_memory(const unsigned char *data, size_t size, int writable, void **state);
/// The bytes written so far (valid until dr_enc_tiff_memory_free).
const unsigned char *dr_enc_tiff_memory_bytes(void *state, size_t *size);
void dr_enc_tiff_memory_free(void *state);
int dr_enc_tiff_get_u16(struct tiff *t, unsigned tag, unsigned short *v);
int dr_enc_tiff_get_u32(struct tiff *t, unsigned tag, unsigned *v);
int dr_enc_tiff_get_string(struct tiff *t, unsigned tag, const char **s);
/// For counted tags such as TIFFTAG_ICCPROFILE (uint32 count, void *data).
int dr_enc_tiff_get_bytes(struct tiff *t, unsigned tag, unsigned *count, const void **bytes);
/// Fixes glibc's malloc thresholds for a render process (Sources/CShims/malloc_tuning.c):
/// blocks under 32 MiB are served from the heap instead of fresh mappings, free heap top is
/// returned past 128 MiB, the heap grows 16 MiB at a time. Call once at start; 1 on success.
int dr_tune_malloc(void);
#endif
