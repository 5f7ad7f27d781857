// SIGBUS guard for read-only file mappings; see include/CMapGuard.h.
#define _GNU_SOURCE
#include "CMapGuard.h"
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>

#define DR_MAPGUARD_SLOTS 1024

typedef struct {
    atomic_int used;          // claimed by a registration
    atomic_uintptr_t base;    // 0 while not (yet) active
    atomic_size_t length;
    atomic_int damaged;
} dr_slot;

static dr_slot slots[DR_MAPGUARD_SLOTS];
static struct sigaction previous;
static uintptr_t page_size = 4096;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int installed = 0;

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int i = 0; i < DR_MAPGUARD_SLOTS; i++) {
        uintptr_t base = atomic_load(&slots[i].base);
        if (base == 0) continue;
        size_t length = atomic_load(&slots[i].length);
        if (address < base || address - base >= length) continue;
        uintptr_t first = address & ~(page_size - 1);
        uintptr_t end = (base + length + page_size - 1) & ~(page_size - 1);
        void *p = mmap((void *)first, end - first, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p != MAP_FAILED) {
            atomic_store(&slots[i].damaged, 1);
            return;   // the faulting read is retried and now reads zeros
        }
        break;
    }
    // Not one of ours (or the remap failed): the previous disposition, then re-raise.
    sigaction(SIGBUS, &previous, NULL);
    (void)sig; (void)context;
    raise(SIGBUS);
}

static void install(void) {
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0) page_size = (uintptr_t)ps;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    installed = sigaction(SIGBUS, &sa, &previous) == 0;
}

int dr_mapguard_register(const void *base, size_t length) {
    if (base == NULL || length == 0) return -1;
    pthread_once(&once, install);
    if (!installed) return -1;
    for (int i = 0; i < DR_MAPGUARD_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&slots[i].used, &expected, 1)) {
            atomic_store(&slots[i].damaged, 0);
            atomic_store(&slots[i].length, length);
            atomic_store(&slots[i].base, (uintptr_t)base);
            return i;
        }
    }
    return -1;
}

int dr_mapguard_damaged(int slot) {
    if (slot < 0 || slot >= DR_MAPGUARD_SLOTS) return 0;
    return atomic_load(&slots[slot].damaged);
}

int dr_mapguard_unregister(int slot) {
    if (slot < 0 || slot >= DR_MAPGUARD_SLOTS) return 0;
    atomic_store(&slots[slot].base, 0);
    atomic_store(&slots[slot].length, 0);
    int damaged = atomic_load(&slots[slot].damaged);
    atomic_store(&slots[slot].used, 0);
    return damaged;
}
