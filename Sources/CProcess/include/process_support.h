#ifndef PREFLIGHT_PROCESS_SUPPORT_H
#define PREFLIGHT_PROCESS_SUPPORT_H
/*
** Linux process calls that Swift's Glibc module does not import (they need
** _GNU_SOURCE, <sys/prctl.h> or syscall(2)): what a worker needs to die with its parent
** and to confine itself, what a parent needs to start it without leaking descriptors,
** and the kernel's copy and writeback of a file.
*/

/* prctl(PR_SET_PDEATHSIG, sig): the kernel sends `sig` to this process when its parent
** thread exits. Returns 0 or -1 with errno. */
int preflight_set_parent_death_signal(int sig);

/* pipe2(fds, O_CLOEXEC). Returns 0 or -1 with errno. */
int preflight_pipe_cloexec(int fds[2]);

/* copy_file_range(in, NULL, out, NULL, count, 0): up to `count` bytes from the current
** offset of `in` to that of `out`, inside the kernel (a reflink where the filesystem
** shares extents). Returns the bytes copied, 0 at the end of `in`, or -1 with errno. */
long preflight_copy_file_range(int in, int out, unsigned long count);

/* sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE): starts the disk writing the
** dirty pages of that range without waiting for them (it may wait for room in the
** disk's queue). Returns 0 or -1 with errno. */
int preflight_start_writeback(int fd, long long offset, long long count);

/*
** Landlock (Linux 5.13+; no libc wrappers in bookworm's glibc, so syscall(2)): a process
** confines its own file access to what its rules grant. Each call returns 0 (or the
** ABI version, or a descriptor) on success and -errno on failure: -ENOSYS or
** -EOPNOTSUPP when the kernel has no Landlock or has it switched off.
*/

/* What a rule grants beneath a path (every other right the ruleset handles is denied). */
enum preflight_landlock_access {
    /* Read files and list directories (an upload read where it lies). */
    PREFLIGHT_LANDLOCK_READ,
    /* Read files and list directories; run files (binaries, shared libraries). */
    PREFLIGHT_LANDLOCK_READ_EXECUTE,
    /* Read and write existing files (/dev/null). */
    PREFLIGHT_LANDLOCK_READ_WRITE,
    /* Read, write, truncate, create and delete regular files; nothing run, no
    ** directories, links, devices, sockets or pipes made. */
    PREFLIGHT_LANDLOCK_FILES,
};

/* The highest Landlock ABI the kernel supports (1 or more). */
int preflight_landlock_abi(void);

/* A new ruleset that handles every file-system right `abi` knows; a descriptor. */
int preflight_landlock_create_ruleset(int abi);

/* Grants `access` beneath `path` (a directory) or on it (a file: only the file rights of
** `access`). -ENOENT when the path does not exist. */
int preflight_landlock_allow(int ruleset, int abi, const char *path, enum preflight_landlock_access access);

/* Sets no_new_privs and enforces the ruleset on this thread and what it starts later;
** the ruleset descriptor can be closed afterwards. */
int preflight_landlock_restrict_self(int ruleset);

#endif
