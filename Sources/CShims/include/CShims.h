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


/// `imgdata.color.cblack[index]` (Swift cannot import the 4104-element array); 0 when out of range.
unsigned dr_libraw_cblack(const void *libraw_data, unsigned index);
#endif
