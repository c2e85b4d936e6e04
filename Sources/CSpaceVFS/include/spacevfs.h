/*
** spacevfs: a shim VFS that measures and limits the space a migration uses.
**
** OVERVIEW
**   Registered under the name SPACEVFS_NAME, wrapping the default VFS. Every file
**   SQLite opens through it (main database, rollback journal, WAL, shm, sub-journals,
**   temp databases, sorter and other transient files) is tracked by class; growth
**   without xWrite (size hints, shm mapping) counts too. When the total of all files
**   would grow past the quota, the write fails with SQLITE_FULL, as a full disk would.
**
**   Counters live in a small stats file that each process mmaps (MAP_SHARED), so a
**   parent process reads them even after the migrating process was SIGKILLed.
**
**   Mechanism only: no policy. The Swift side (MigrationCore/Space) decides what a
**   quota is and when a step's window begins.
*/
#ifndef PREFLIGHT_SPACEVFS_H
#define PREFLIGHT_SPACEVFS_H
#include <stdint.h>

#define SPACEVFS_NAME "preflight-space"

/* File classes as the report shows them (docs/CONTRACT.md §3 space.by_class). */
enum {
    SPACEVFS_CLASS_MAIN = 0,    /* main database file */
    SPACEVFS_CLASS_JOURNAL = 1, /* rollback journal (and super-journal) */
    SPACEVFS_CLASS_WAL = 2,     /* write-ahead log */
    SPACEVFS_CLASS_SHM = 3,     /* wal-index (-shm) */
    SPACEVFS_CLASS_TEMP = 4,    /* sub-journals, temp databases, sorter and transient files */
    SPACEVFS_CLASS_COUNT = 5
};

typedef struct spacevfs_counters {
    int64_t total_bytes;                          /* sum of all tracked files now */
    int64_t peak_total_bytes;                     /* highest total_bytes seen */
    int64_t bytes[SPACEVFS_CLASS_COUNT];          /* current size per class */
    int64_t peak_bytes[SPACEVFS_CLASS_COUNT];     /* highest size per class */
    int64_t bytes_written[SPACEVFS_CLASS_COUNT];  /* bytes passed to xWrite per class */
    int64_t syncs[SPACEVFS_CLASS_COUNT];          /* xSync calls per class */
    int64_t write_calls[SPACEVFS_CLASS_COUNT];    /* xWrite calls per class */
    int64_t reads[SPACEVFS_CLASS_COUNT];          /* xRead calls per class */
    int64_t bytes_read[SPACEVFS_CLASS_COUNT];     /* bytes asked of xRead per class */
    int64_t random_reads[SPACEVFS_CLASS_COUNT];   /* xRead calls that went to flash and did not start where the handle's last read ended */
    int64_t flash_bytes_read[SPACEVFS_CLASS_COUNT]; /* bytes of the pages xRead found outside the kernel's page cache (pagecache.h) */
    int64_t cached_pages[SPACEVFS_CLASS_COUNT];   /* pages copied from or into the page cache: those xRead found there, and every page xWrite wrote */
    int64_t flushed_extents[SPACEVFS_CLASS_COUNT]; /* runs of bytes a sync made durable: the handle's writes since its last sync, merged where they touch (database, journal and WAL) */
    int64_t flushed_bytes[SPACEVFS_CLASS_COUNT];  /* bytes those syncs wrote to flash: every page of those runs, once per sync */
} spacevfs_counters;

typedef struct spacevfs_stats {
    uint32_t magic;               /* SPACEVFS_MAGIC once initialised */
    uint32_t layout_version;      /* SPACEVFS_LAYOUT_VERSION */
    int64_t quota_bytes;          /* most total bytes allowed; -1 = unlimited */
    int64_t full_errors;          /* writes refused with SQLITE_FULL */
    int32_t window_tag;           /* caller's tag for the current window (a step version) */
    int32_t reserved;
    int64_t window_start_bytes;   /* run.total_bytes when the current window began */
    spacevfs_counters run;        /* since the stats file was created, across processes */
    spacevfs_counters window;     /* since the last spacevfs_window_begin */
    int64_t durable_syncs;        /* xSync calls of the main db, journal and WAL, across processes */
    int64_t writes;               /* xWrite calls of every class, across processes */
    int64_t fault_hits;           /* injected faults that fired (spacevfs_inject_fault) */
    int32_t fault_class;          /* SPACEVFS_CLASS_* of the file the last fault hit */
    int32_t fault_tag;            /* window_tag when it fired: the step running */
} spacevfs_stats;

#define SPACEVFS_MAGIC 0x50465356u /* "PFSV" */
#define SPACEVFS_LAYOUT_VERSION 6u

/*
** Parent side: create (or truncate) the stats file at zPath with the given quota
** (-1 for unlimited). Returns 0 or an errno value.
*/
int spacevfs_stats_create(const char *zPath, int64_t quotaBytes);

/*
** Parent side: copy the stats file's current contents into *pOut without
** registering anything. Works after the writer was killed. Returns 0 or an errno
** value (EINVAL for a file that is not a stats file).
*/
int spacevfs_stats_read(const char *zPath, spacevfs_stats *pOut);

/*
** Worker side: mmap the stats file at zPath (made by spacevfs_stats_create) and
** register the shim VFS as SPACEVFS_NAME (not as the default). Current sizes start
** at zero in each process: files are counted as they are opened, with their size at
** open. Peaks, bytes written and syncs of earlier processes are kept. Returns an
** SQLite result code: SQLITE_OK, SQLITE_CANTOPEN if zStatsPath cannot be opened
** or is not a stats file (the registration in place, if any, is kept).
**
** May be called again, with the same or another stats path (tests, a long-lived
** process): the VFS stays registered and the new file is mapped in place of the
** old one; its current sizes restart from the files open at that moment, and
** files closed before are forgotten.
**
** This calls sqlite3_initialize(), and the unix VFS reads SQLITE_TMPDIR/TMPDIR
** only then (sqlite3_os_init): set SQLITE_TMPDIR before the first SQLite call.
*/
int spacevfs_register(const char *zStatsPath);

/* Worker side: the stats as they are now (zeroes if not registered). */
void spacevfs_snapshot(spacevfs_stats *pOut);

/*
** Worker side: start a new accounting window (one per step): the window's peaks
** restart from the current sizes, its bytes written and syncs from zero.
*/
void spacevfs_window_begin(int32_t tag);

/*
** Worker side: call xHook after every read, write and sync the shim counts (NULL
** for none), outside the shim's lock, on the thread that did the I/O. The
** device clock uses it to see its deadline pass during I/O, between the
** virtual machine instructions that SQLite's progress handler reports.
*/
void spacevfs_set_io_hook(void (*xHook)(void));

/*
** Worker side: when bOn, xSync of every file and xDelete's directory sync are
** counted (syncs, durable_syncs, the operation log, a fault before a sync) but
** not passed on to the OS; bOn 0 (the default) passes them on. For a run on the
** device clock, which charges a sync from its count: the flush's wait on this
** machine's disk is not part of the prediction, a SIGKILL loses nothing that
** the page cache holds, and a power cut is replayed from the operation log,
** not from this disk. Wall-clock runs and calibration time real flushes.
*/
void spacevfs_count_flushes_only(int bOn);

/*
** The kernel's page cache, as the device clock counts it: a page read or
** written once in a job is cached, and the relaunch after a SIGKILL finds it
** still cached (the bits live in "<stats path less .stats>.pages.stats", made with the stats
** file); a deleted file's pages, and a truncated file's pages past its end,
** leave it.  A job starts with no page of its files cached, unless
** spacevfs_pages_warm_at_open(1) was called before the files were first
** opened: then every page of a named file is cached when the job first opens
** it.  While spacevfs_pause_pages(1) holds, reads neither count in the page
** cache nor bring pages into it (work that is not the app's).
*/
void spacevfs_pages_warm_at_open(int bOn);
void spacevfs_pause_pages(int bOn);
/* The file zPath left the page cache (the caller evicted it): 0, or ENOENT if never opened. */
int spacevfs_forget_pages(const char *zPath);

/* Faults spacevfs_inject_fault can arm. */
enum {
    SPACEVFS_FAULT_NONE = 0,
    SPACEVFS_FAULT_KILL_BEFORE_SYNC = 1, /* raise(SIGKILL) just before durable sync number N */
    SPACEVFS_FAULT_FULL_AT_WRITE = 2,    /* write number N fails SQLITE_FULL; the disk stays full */
    SPACEVFS_FAULT_KILL_AT_MAIN_WRITE = 3 /* raise(SIGKILL) just before this process's N-th write of a main database file */
};

/*
** Worker side: arm one fault for this process. N counts across processes, as the
** stats file's durable_syncs and writes do, so the fault fires at the run's N-th
** point whichever launch reaches it (once: the counters only grow). When it fires,
** fault_hits, fault_class and fault_tag record it in the stats file first, so the
** parent learns where a killed worker died. A full disk stays full: the quota is set
** to the bytes in use, so later growth fails too (writes inside a file still succeed).
**
** KILL_AT_MAIN_WRITE counts the writes of main database files in this process alone
** (the stats file has no count per class), and fires only if no fault has fired in the
** run yet (fault_hits is 0): once, in the first launch that reaches N. In WAL mode the
** main file is written only by checkpoints, so this kills one where it chooses, e.g.
** after page 1 says the new size and before the file has grown to it.
*/
void spacevfs_inject_fault(int kind, int64_t n);

/*
** Recording, for a power-loss sweep.  Off unless spacevfs_record_operations was
** called in this process; then every operation on the main database, its journal
** and its WAL that a power cut could undo is appended to a log file, one
** spacevfs_record each (a write followed by its bytes), in the order it happened,
** across the launches (each worker appends).  The -shm and temp files are not
** logged: neither outlives a power cut as state SQLite trusts.
*/
enum {
    SPACEVFS_OP_WRITE = 1,    /* offset, length; the length bytes follow */
    SPACEVFS_OP_TRUNCATE = 2, /* offset = the new size */
    SPACEVFS_OP_SYNC = 3,     /* flags = the SQLITE_SYNC_* flags; logged before the real sync */
    SPACEVFS_OP_CREATE = 4,   /* the file did not exist and xOpen created it */
    SPACEVFS_OP_DELETE = 5,   /* flags = xDelete's dirSync */
    SPACEVFS_OP_MARK = 6      /* offset = a version the caller says is now committed */
};

typedef struct spacevfs_record {
    uint8_t op;          /* SPACEVFS_OP_* */
    uint8_t file_class;  /* SPACEVFS_CLASS_MAIN, _JOURNAL or _WAL (0 for a mark) */
    uint16_t flags;
    uint32_t reserved;
    int64_t offset;
    int64_t length;
} spacevfs_record;

/*
** Worker side: start logging to zLogPath (created 0600 if missing, appended to).
** Returns 0 or an errno value.
*/
int spacevfs_record_operations(const char *zLogPath);

/* Worker side: log a mark (a committed version); nothing when not recording. */
void spacevfs_record_mark(int64_t version);

#endif
