#ifndef PREFLIGHT_COUNTED_COLLATIONS_H
#define PREFLIGHT_COUNTED_COLLATIONS_H
#include <sqlite3.h>
#include <string.h>

/*
 * SQLite's built-in NOCASE and RTRIM collations, counted.
 *
 * A comparison through a collation is CPU that no count of SQLite's prices: it is no
 * virtual-machine instruction, and an index on a collated text cannot take the record
 * comparison's fast path that a BINARY index takes. Registering a collation under a
 * built-in name replaces the built-in one on that connection, so these replacements count
 * every comparison the connection makes through them.
 *
 * Each returns exactly what SQLite 3.40's own function returns (main.c: nocaseCollatingFunc,
 * rtrimCollFunc, binCollFunc; util.c: sqlite3_strnicmp; the ASCII build's
 * sqlite3UpperToLower): an index ordered by one is ordered by the other, so files written
 * with them stay valid for every SQLite.
 */

/* What the counted collations compared on one connection. */
typedef struct preflight_collation_counts {
    /* Calls of the collation: one per comparison of two texts. */
    sqlite3_int64 comparisons;
} preflight_collation_counts;

/* sqlite3UpperToLower of an ASCII build: A-Z fold to a-z, every other byte is itself
 * (no UTF-8 sequence is folded). */
static inline unsigned char preflight_upper_to_lower(unsigned char c) {
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* sqlite3_strnicmp, statement for statement: it stops at a NUL in the left text (what
 * follows a NUL both texts share is not compared), and a null pointer sorts first. */
static inline int preflight_strnicmp(const char *zLeft, const char *zRight, int N) {
    const unsigned char *a, *b;
    if (zLeft == 0) {
        return zRight ? -1 : 0;
    } else if (zRight == 0) {
        return 1;
    }
    a = (const unsigned char *)zLeft;
    b = (const unsigned char *)zRight;
    while (N-- > 0 && *a != 0 && preflight_upper_to_lower(*a) == preflight_upper_to_lower(*b)) {
        a++;
        b++;
    }
    return N < 0 ? 0 : preflight_upper_to_lower(*a) - preflight_upper_to_lower(*b);
}

/* NOCASE: case-folded over the shorter length, then the shorter text first. */
static inline int preflight_counted_nocase(void *counts, int nKey1, const void *pKey1, int nKey2, const void *pKey2) {
    int r = preflight_strnicmp((const char *)pKey1, (const char *)pKey2, nKey1 < nKey2 ? nKey1 : nKey2);
    ((preflight_collation_counts *)counts)->comparisons++;
    if (r == 0) {
        r = nKey1 - nKey2;
    }
    return r;
}

/* RTRIM: BINARY (memcmp over the shorter length, then by length) once trailing spaces are
 * dropped. */
static inline int preflight_counted_rtrim(void *counts, int nKey1, const void *pKey1, int nKey2, const void *pKey2) {
    const unsigned char *pK1 = (const unsigned char *)pKey1;
    const unsigned char *pK2 = (const unsigned char *)pKey2;
    int rc;
    ((preflight_collation_counts *)counts)->comparisons++;
    while (nKey1 && pK1[nKey1 - 1] == ' ') nKey1--;
    while (nKey2 && pK2[nKey2 - 1] == ' ') nKey2--;
    rc = memcmp(pKey1, pKey2, nKey1 < nKey2 ? nKey1 : nKey2);
    if (rc == 0) {
        rc = nKey1 - nKey2;
    }
    return rc;
}

/* Replaces NOCASE and RTRIM on `db` with the counted ones, which count into `counts` (which
 * must outlive the connection). Before any statement runs: SQLite refuses to replace a
 * collation while one is active. */
static inline int preflight_count_collations(sqlite3 *db, preflight_collation_counts *counts) {
    int rc = sqlite3_create_collation_v2(db, "NOCASE", SQLITE_UTF8, counts, preflight_counted_nocase, 0);
    if (rc == SQLITE_OK) {
        rc = sqlite3_create_collation_v2(db, "RTRIM", SQLITE_UTF8, counts, preflight_counted_rtrim, 0);
    }
    return rc;
}

#endif
