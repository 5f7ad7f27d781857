#ifndef DARKROOM_CMAPGUARD_H
#define DARKROOM_CMAPGUARD_H
#include <stddef.h>

/// Guards read-only file mappings against the file shrinking while they are read.
///
/// Reading a page of a memory-mapped file that another process truncated raises SIGBUS, which
/// would kill the process. A registered mapping is protected: the SIGBUS handler replaces the
/// mapping from the faulting page to its end with zero-filled anonymous pages, marks the mapping
/// damaged and returns, so the read completes (with zeros). The reader then asks
/// `dr_mapguard_damaged` and reports the file as truncated instead of using what it read.
/// A SIGBUS at any other address keeps its default effect.
///
/// All functions are thread-safe; the handler is installed on first registration.

/// Registers `[base, base + length)`; returns a slot (≥ 0), or -1 when every slot is in use (the
/// mapping then stays unguarded) or the handler cannot be installed.
int dr_mapguard_register(const void *base, size_t length);
/// 1 when a read of the slot's mapping hit a page past the end of the file, else 0.
int dr_mapguard_damaged(int slot);
/// Releases the slot (before the mapping is unmapped); returns its damaged flag.
int dr_mapguard_unregister(int slot);
#endif
