/* A 64-bit hash of bytes (module prefix tdcl_): cache keys and table names. */
#ifndef TDCL_HASH_H
#define TDCL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of data, continuing from h (start with 0). */
uint64_t tdcl_hash64(uint64_t h, const void *data, size_t len);

#endif
