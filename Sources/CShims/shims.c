#include "CShims.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>
#include <lcms2.h>

static _Thread_local char tiff_error[512];
static _Thread_local char lcms_error[512];

static void tiff_error_handler(const char *module, const char *fmt, va_list ap) {
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    snprintf(tiff_error, sizeof tiff_error, "%s%s%s", module ? module : "", module ? ": " : "", msg);
}

static void tiff_warning_handler(const char *module, const char *fmt, va_list ap) {
    (void)module; (void)fmt; (void)ap; /* warnings (unknown tags etc.) are not errors */
}

void dr_tiff_install_handlers(void) {
    TIFFSetErrorHandler(tiff_error_handler);
    TIFFSetWarningHandler(tiff_warning_handler);
}

const char *dr_tiff_last_error(void) { return tiff_error; }
void dr_tiff_clear_error(void) { tiff_error[0] = 0; }

static void lcms_handler(cmsContext ctx, cmsUInt32Number code, const char *text) {
    (void)ctx;
    snprintf(lcms_error, sizeof lcms_error, "lcms2 error %u: %s", (unsigned)code, text ? text : "");
}

void dr_lcms_install_handler(void) { cmsSetLogErrorHandler(lcms_handler); }
const char *dr_lcms_last_error(void) { return lcms_error; }

#include <libraw.h>
unsigned dr_libraw_cblack(const void *libraw_data, unsigned index) {
    const libraw_data_t *d = (const libraw_data_t *)libraw_data;
    if (index >= LIBRAW_CBLACK_SIZE) return 0;
    return d->color.cblack[index];
}
