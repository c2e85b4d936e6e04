#include "getopt_shim.h"

#include <stddef.h>

void preflight_getopt_reset(void) {
    optind = 0;
    opterr = 0;
}

int preflight_getopt_long(int argc, char *argv[], const char *optstring, const struct option *longopts) {
    return getopt_long(argc, argv, optstring, longopts, NULL);
}

int preflight_getopt_index(void) { return optind; }

int preflight_getopt_option(void) { return optopt; }

const char *preflight_getopt_argument(void) { return optarg; }
