#ifndef PREFLIGHT_GETOPT_SHIM_H
#define PREFLIGHT_GETOPT_SHIM_H
/*
** glibc's getopt_long(3) for Swift. Swift's Glibc module does not import <getopt.h>,
** and getopt's state lives in C globals (optind, optarg, optopt, opterr) that Swift 6
** refuses to touch as shared mutable state: these functions read and reset them.
** getopt is not reentrant; the caller holds one lock around a whole parse.
*/
#include <getopt.h>

/* Starts a new parse: optind = 0 (glibc's full reinitialisation, so that a second
** parse in the same process starts clean) and opterr = 0 (the caller words the errors). */
void preflight_getopt_reset(void);

/* getopt_long(argc, argv, optstring, longopts, NULL). */
int preflight_getopt_long(int argc, char *argv[], const char *optstring, const struct option *longopts);

/* optind: the index in argv of the next element to read (after the parse: the first operand). */
int preflight_getopt_index(void);

/* optopt: the option character (or a long option's val) of the last error. */
int preflight_getopt_option(void);

/* optarg: the value of the last option read, or NULL. */
const char *preflight_getopt_argument(void);

#endif
