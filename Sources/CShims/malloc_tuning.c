#include "CShims.h"
#include <malloc.h>

// See CShims.h. glibc's defaults start the mmap threshold at 128 KiB and move it (and the trim
// threshold) with the sizes freed; a render's scratch planes of varying size (lens-corrected tiles
// ask the demosaic for source areas of different sizes) then keep being mapped, faulted in, and
// unmapped or trimmed. Fixed thresholds keep such blocks in the heap for reuse.
int dr_tune_malloc(void) {
    int ok = 1;
    ok &= mallopt(M_MMAP_THRESHOLD, 32 << 20);   // blocks under 32 MiB come from the heap
    ok &= mallopt(M_TRIM_THRESHOLD, 128 << 20);  // give free heap top back past 128 MiB
    ok &= mallopt(M_TOP_PAD, 16 << 20);          // grow the heap 16 MiB at a time
    return ok;
}
