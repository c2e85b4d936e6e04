#ifndef PREFLIGHT_PROCESS_SUPPORT_H
#define PREFLIGHT_PROCESS_SUPPORT_H
/*
** Linux process calls that Swift's Glibc module does not import (they need
** _GNU_SOURCE or <sys/prctl.h>): what a worker needs to die with its parent and what a
** parent needs to start it without leaking descriptors.
*/

/* prctl(PR_SET_PDEATHSIG, sig): the kernel sends `sig` to this process when its parent
** thread exits. Returns 0 or -1 with errno. */
int preflight_set_parent_death_signal(int sig);

/* pipe2(fds, O_CLOEXEC). Returns 0 or -1 with errno. */
int preflight_pipe_cloexec(int fds[2]);

#endif
