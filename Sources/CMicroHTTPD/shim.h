#ifndef PREFLIGHT_CMICROHTTPD_SHIM_H
#define PREFLIGHT_CMICROHTTPD_SHIM_H
/* microhttpd.h expects these to be included first. */
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>
#endif
