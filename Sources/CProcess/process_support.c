#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "process_support.h"

int preflight_set_parent_death_signal(int sig) { return prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0); }

int preflight_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

long preflight_copy_file_range(int in, int out, unsigned long count) {
    return copy_file_range(in, NULL, out, NULL, count, 0);
}

int preflight_start_writeback(int fd, long long offset, long long count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}
