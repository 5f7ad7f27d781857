#ifndef DARKROOM_CFUZZDRIVER_H
#define DARKROOM_CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>
/// libFuzzer's documented entry for programs that have their own `main` (compiler-rt
/// FuzzerInterface.h); linked from the runtime that `-sanitize=fuzzer` brings.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
