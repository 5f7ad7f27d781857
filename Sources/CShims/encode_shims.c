// Helpers for DarkroomIO's encoders and OutputInspector: libtiff on memory buffers
// (TIFFClientOpen) and typed wrappers for the variadic TIFFSetField/TIFFGetField.
#include "CShims.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

typedef struct {
    unsigned char *data;
    size_t size, cap, pos;
    int writable;
} dr_enc_membuf;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n) {
    dr_enc_membuf *m = (dr_enc_membuf *)h;
    if (n < 0) return -1;
    size_t avail = m->pos < m->size ? m->size - m->pos : 0;
    size_t k = (size_t)n < avail ? (size_t)n : avail;
    if (k) memcpy(buf, m->data + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n) {
    dr_enc_membuf *m = (dr_enc_membuf *)h;
    if (!m->writable || n < 0) return -1;
    size_t end = m->pos + (size_t)n;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < end) cap *= 2;
        unsigned char *d = realloc(m->data, cap);
        if (!d) return -1;
        m->data = d; m->cap = cap;
    }
    if (m->pos > m->size) memset(m->data + m->size, 0, m->pos - m->size);
    memcpy(m->data + m->pos, buf, (size_t)n);
    m->pos = end;
    if (end > m->size) m->size = end;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence) {
    dr_enc_membuf *m = (dr_enc_membuf *)h;
    int64_t base = whence == SEEK_CUR ? (int64_t)m->pos : whence == SEEK_END ? (int64_t)m->size : 0;
    int64_t p = base + (int64_t)off;
    if (p < 0) return (toff_t)-1;
    m->pos = (size_t)p;
    return (toff_t)p;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return (toff_t)((dr_enc_membuf *)h)->size; }
static int mem_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

struct tiff *dr_enc_tiff_open_memory(const unsigned char *data, size_t size, int writable, void **state) {
    *state = NULL;
    dr_enc_membuf *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->writable = writable;
    if (!writable) {
        m->data = (unsigned char *)data;   /* not owned; never written */
        m->size = size;
    }
    TIFF *t = TIFFClientOpen("memory", writable ? "w" : "rm", (thandle_t)m, mem_read, mem_write, mem_seek,
                             mem_close, mem_size, mem_map, mem_unmap);
    if (!t) { if (writable) free(m->data); free(m); return NULL; }
    *state = m;
    return t;
}

const unsigned char *dr_enc_tiff_memory_bytes(void *state, size_t *size) {
    dr_enc_membuf *m = (dr_enc_membuf *)state;
    *size = m ? m->size : 0;
    return m ? m->data : NULL;
}

void dr_enc_tiff_memory_free(void *state) {
    dr_enc_membuf *m = (dr_enc_membuf *)state;
    if (!m) return;
    if (m->writable) free(m->data);
    free(m);
}


int dr_enc_tiff_get_u16(struct tiff *t, unsigned tag, unsigned short *v) {
    uint16_t x = 0;
    int ok = TIFFGetField(t, tag, &x);
    *v = x;
    return ok;
}
int dr_enc_tiff_get_u32(struct tiff *t, unsigned tag, unsigned *v) {
    uint32_t x = 0;
    int ok = TIFFGetField(t, tag, &x);
    *v = x;
    return ok;
}
int dr_enc_tiff_get_string(struct tiff *t, unsigned tag, const char **s) {
    char *x = NULL;
    int ok = TIFFGetField(t, tag, &x);
    *s = x;
    return ok;
}
int dr_enc_tiff_get_bytes(struct tiff *t, unsigned tag, unsigned *count, const void **bytes) {
    uint32_t n = 0;
    void *p = NULL;
    int ok = TIFFGetField(t, tag, &n, &p);
    *count = n; *bytes = p;
    return ok;
}
