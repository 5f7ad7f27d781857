// xxHash 0.8 (Debian libxxhash-dev): XXH3-128 streaming state for DarkroomIO's ContentDigest.
#include <xxhash.h>
