#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "process_support.h"

/* Rights newer than bookworm's kernel headers (6.1, ABI 2). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif

/* Every file-system right the given ABI knows (and this file does): what the ruleset
** handles, so that each is denied unless a rule grants it. */
static __u64 handled_rights(int abi) {
    __u64 rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0 to 12 */
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return rights;
}

/* The only rights a rule on a file (not a directory) may carry. */
static const __u64 file_rights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;

int preflight_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -errno : (int)abi;
}

int preflight_landlock_create_ruleset(int abi) {
    struct landlock_ruleset_attr attributes = {.handled_access_fs = handled_rights(abi)};
    long fd = syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
    return fd < 0 ? -errno : (int)fd;
}

static __u64 granted_rights(enum preflight_landlock_access access) {
    const __u64 read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    switch (access) {
    case PREFLIGHT_LANDLOCK_READ:
        return read;
    case PREFLIGHT_LANDLOCK_READ_EXECUTE:
        return read | LANDLOCK_ACCESS_FS_EXECUTE;
    case PREFLIGHT_LANDLOCK_READ_WRITE:
        return read | LANDLOCK_ACCESS_FS_WRITE_FILE;
    case PREFLIGHT_LANDLOCK_FILES:
        return read | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_MAKE_REG |
            LANDLOCK_ACCESS_FS_REMOVE_FILE;
    }
    return 0;
}

int preflight_landlock_allow(int ruleset, int abi, const char *path, enum preflight_landlock_access access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat status;
    if (fstat(fd, &status) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    struct landlock_path_beneath_attr rule = {.parent_fd = fd};
    rule.allowed_access = granted_rights(access) & handled_rights(abi);
    if (!S_ISDIR(status.st_mode)) rule.allowed_access &= file_rights;
    long result = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int error = errno;
    close(fd);
    return result < 0 ? -error : 0;
}

int preflight_landlock_restrict_self(int ruleset) {
    /* Landlock requires it of an unprivileged process: nothing exec'd later gains rights. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    long result = syscall(SYS_landlock_restrict_self, ruleset, 0);
    return result < 0 ? -errno : 0;
}
