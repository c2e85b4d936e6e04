#ifndef PREFLIGHT_SHA256_H
#define PREFLIGHT_SHA256_H
/*
** SHA-256 (FIPS 180-4) in C: the toolchain on Linux has no CryptoKit, the project takes
** no outside packages, and reports hash files of hundreds of megabytes, which Swift
** compiled without optimisation (debug builds, the test suite) does at a few MB/s.
*/
#include <stddef.h>
#include <stdint.h>

typedef struct preflight_sha256 {
    uint32_t state[8];
    uint64_t length;      /* bytes hashed so far */
    uint8_t pending[64];  /* a partial block */
    size_t pendingCount;
} preflight_sha256;

void preflight_sha256_init(preflight_sha256 *ctx);
void preflight_sha256_update(preflight_sha256 *ctx, const void *data, size_t count);
/* Writes the 32-byte digest to out. */
void preflight_sha256_final(preflight_sha256 *ctx, uint8_t out[32]);

#endif
