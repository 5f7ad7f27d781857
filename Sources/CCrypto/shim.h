// OpenSSL 3 libcrypto (Debian libssl-dev): the EVP message-digest API, for DarkroomIO's MD5 and
// SHA-256 (DNG raw digests, ICC profile IDs, recipe and manifest hashes).
#include <openssl/evp.h>
