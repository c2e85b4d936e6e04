#ifndef PREFLIGHT_CNETTLE_SHIM_H
#define PREFLIGHT_CNETTLE_SHIM_H
/*
** Nettle's SHA-256 (Debian's libnettle8, already in the runtime image through
** libmicrohttpd12). sha2.h names the functions sha256_init etc. by macros that Swift
** does not import; Swift calls the real symbols, nettle_sha256_init etc.
*/
#include <nettle/sha2.h>

#endif
