#include "CShims.h"

#if defined(__x86_64__)
#include <cpuid.h>

static unsigned long long dr_xgetbv0(void) {
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

int dr_cpu_has_x86_64_v3(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    // SSE4.2 (20), FMA (12), MOVBE (22), POPCNT (23), OSXSAVE (27), AVX (28), F16C (29).
    const unsigned leaf1 = (1u << 20) | (1u << 12) | (1u << 22) | (1u << 23) | (1u << 27) | (1u << 28) | (1u << 29);
    if ((c & leaf1) != leaf1) return 0;
    if ((dr_xgetbv0() & 6) != 6) return 0;  // the OS saves XMM and YMM state
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const unsigned leaf7 = (1u << 3) | (1u << 5) | (1u << 8);  // BMI1, AVX2, BMI2
    if ((b & leaf7) != leaf7) return 0;
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d)) return 0;
    return (c >> 5) & 1;  // LZCNT
}
#else
int dr_cpu_has_x86_64_v3(void) { return 1; }
#endif
