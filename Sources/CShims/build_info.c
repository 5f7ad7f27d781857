#include "CShims.h"

// build_info.h is generated (Makefile: `build-info`) and not committed: one line,
// #define DARKROOM_COMMIT "<git describe --always --dirty>".
#if __has_include("build_info.h")
#include "build_info.h"
#endif

#ifndef DARKROOM_COMMIT
#define DARKROOM_COMMIT "unknown"
#endif

const char *dr_build_commit(void) { return DARKROOM_COMMIT; }
