/*
** pagecache.h: which pages of a file the kernel's page cache holds, as the
** shim VFS's device clock counts them (private to CSpaceVFS).
**
**   A phone's kernel keeps every page a process read or wrote in its page
**   cache, in RAM, until memory runs short or the file is deleted or cut
**   short: a second read of such a page is a copy, not a flash read.  Each
**   file the shim opens gets a SpacePages: one bit per 4 KiB page, set when
**   the page is read or written.
**
**   A named file's bits (the database, its journal, its WAL) live in a
**   shared file beside the stats file (spacePagesMap), so that they outlive
**   the worker: a process the watchdog SIGKILLs leaves its pages in the
**   kernel's cache, which belong to the file, not to the process, and the
**   relaunch finds them there.  A temporary file's bits are the process's
**   own: the file dies with it.
**
**   Every function expects the shim's mutex to be held.
*/
#ifndef PREFLIGHT_PAGECACHE_H
#define PREFLIGHT_PAGECACHE_H
#include <stdint.h>

/* The page the kernel caches a file in: 4 KiB on Linux and Android. */
#define SPACE_PAGE_SIZE 4096

typedef struct SpacePages SpacePages;

/* Create (or empty) the shared pages file of zStatsPath.  0 or an errno value. */
int spacePagesCreate(const char *zStatsPath);

/*
** Map the shared pages file of zStatsPath in place of the one mapped now
** (none is fine: named files' bits are then the process's own).  Pages
** already attached stay where they are until spacePagesDetach.
*/
void spacePagesMap(const char *zStatsPath);

/*
** The pages of the file zName (NULL for a temporary file), of szFile bytes
** now.  A named file not seen before in this job starts with nothing
** cached, or, after spacePagesWarmAtOpen(1), with all of its pages.  NULL
** if no memory could be mapped: nothing is counted for that file then.
*/
SpacePages *spacePagesAttach(const char *zName, int64_t szFile);

/* Let go of p; bForget also empties it (the file was deleted). */
void spacePagesDetach(SpacePages *p, int bForget);

/* Whether a named file first seen in this job starts with every page cached. */
void spacePagesWarmAtOpen(int bOn);

/*
** Bring the pages of [iOfst, iOfst+iAmt) into the cache.  Returns how many
** were not there (each a page read from flash, or a page a write fills) and
** adds to *pnCached how many were.
*/
int64_t spacePagesTouch(SpacePages *p, int64_t iOfst, int64_t iAmt, int64_t *pnCached);

/* The file was cut to szFile bytes: the pages past it leave the cache. */
void spacePagesTruncate(SpacePages *p, int64_t szFile);

#endif
