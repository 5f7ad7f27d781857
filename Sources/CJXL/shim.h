// libjxl (Debian libjxl-dev 0.7): the decoder for JPEG XL DNG tiles (Compression 52546) and the
// encoder the tests and the benchmark make such tiles with.
#include <jxl/decode.h>
#include <jxl/encode.h>
