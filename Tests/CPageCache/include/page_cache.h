#ifndef PREFLIGHT_TEST_PAGE_CACHE_H
#define PREFLIGHT_TEST_PAGE_CACHE_H
/*
** What the page cache holds of a file, for tests: cachestat(2) (Linux 6.5+; no libc
** wrapper in bookworm's glibc, and syscall(2) is variadic, which Swift cannot call).
*/

/* The pages of the whole file `fd` that are dirty (written, not yet sent to the disk)
** and under writeback (sent, not yet on it). Returns 0, or -errno: -ENOSYS on a
** kernel without cachestat. */
int preflight_test_unwritten_pages(int fd, unsigned long long *dirty, unsigned long long *writeback);

#endif
