// lensfun's C API (lens database, lens models, lfModifier) — Debian liblensfun-dev 0.3.3,
// its database in liblensfun-data-v1 (/usr/share/lensfun/version_1).
#include <lensfun.h>
