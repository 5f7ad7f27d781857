// XNNPACK's subgraph API (Debian libxnnpack-dev) and the pthreadpool it runs on (libpthreadpool-dev).
#include <pthreadpool.h>
#include <xnnpack.h>
