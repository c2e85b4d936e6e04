/*
** spacevfs.c: a shim VFS that measures and limits the disk space SQLite uses.
**
** OVERVIEW
**
**   spacevfs_register() copies the default VFS (sqlite3_vfs_find(0), the unix
**   VFS on Linux) and registers the copy as SPACEVFS_NAME, not as the default.
**   Only xOpen and xDelete are replaced at the VFS level; every other VFS
**   method is the unix one, copied as test_quota.c does.  Each file opened
**   through the shim is a SpaceFile: the SpaceFile comes first and the real
**   file is allocated right after it (szOsFile = sizeof(SpaceFile) +
**   pReal->szOsFile).
**
**   Each file is classified by its open flags into one of the classes of
**   spacevfs.h (main, journal, WAL, temp).  The -shm file is never opened
**   through xOpen: it is measured in xShmMap as the highest region mapped.
**
**   Sizes are kept in SpaceNode records, one per file on disk:
**
**     - a file with a name that outlives its handle (main database,
**       journals, WAL) has a node in a list keyed by that name.  Handles on
**       the same path share the node, so two connections to one database
**       count it once.  The node stays after xClose, holding the last known
**       size: the file is still on disk and still counted.  xOpen of the same
**       path again re-seeds it from the real size (no double count), and
**       xDelete of the path subtracts it.
**
**     - a file that is deleted when closed (SQLITE_OPEN_DELETEONCLOSE, or
**       zName==NULL, which the unix VFS unlinks right after opening) uses a
**       node embedded in its SpaceFile, so it costs no allocation; xClose
**       subtracts it.
**
**   Why xDelete needs no stat(): the shim counts only what this process
**   opened.  A path this process never opened was never added, so there is
**   nothing to subtract; a path it did open still has its node (kept after
**   xClose for exactly this reason: in rollback mode the journal is closed
**   before it is deleted, and the WAL too).  So the node's last known size is
**   what was counted, and subtracting it keeps the books balanced.  A stat
**   would cost a syscall and could disagree with what was counted.
**
**   A file grows through:
**     xWrite past the end                  checked against the quota first
**     SQLITE_FCNTL_SIZE_HINT               checked first; the unix VFS
**                                          extends the file only when a chunk
**                                          size or mmap is set, so the shim
**                                          predicts the same way
**     xShmMap of a new region              checked first
**     xTruncate to a larger chunk multiple never refused (rare, see unixTruncate)
**   and shrinks through xTruncate, xShmUnmap(deleteFlag), xClose of a
**   delete-on-close file and xDelete.  Shrinking is never refused.
**
**   The counters live in a spacevfs_stats struct in a small file that this
**   process mmaps MAP_SHARED, so a parent process can read them (with
**   spacevfs_stats_read) after this process was SIGKILLed.  Two sets are kept:
**   "run" (since the file was created, across processes) and "window" (since
**   the last spacevfs_window_begin).  Every change updates both.
**
**   Quota: when stats->quota_bytes >= 0, any growth that would take
**   run.total_bytes past it is refused with SQLITE_FULL before anything is
**   written, and full_errors is incremented.  Writes inside the current size
**   are never refused.
**
**   Durable points and faults: every xSync of a main database, journal or WAL
**   increments durable_syncs, every xWrite increments writes, both across
**   processes (the stats file lives through the launches).  A worker of a
**   kill sweep arms spacevfs_inject_fault: SIGKILL raised in xSync just before
**   the N-th durable sync, a real kill with nothing after it; or SQLITE_FULL at
**   the N-th write, after which the disk stays full (quota = bytes in use);
**   or SIGKILL in xWrite just before this process's N-th write of a main
**   database file (in WAL mode, inside a checkpoint).  The fault is written to
**   the stats file before it fires.
**
**   Recording (power-loss sweeps): after spacevfs_record_operations, every
**   write (with its bytes), truncate, sync (with its flags), creation and
**   deletion (with its dirSync flag) of a main database, journal or WAL is
**   appended to a log file as it happens, for the parent to rebuild what a
**   power cut at any sync could leave.  An ordinary run never turns it on and
**   pays one untaken branch per operation.  A creation is seen by asking
**   whether the file exists before xOpen, only while recording.
**
**   Re-registration: spacevfs_register may be called again, with the same
**   or another stats path (tests do this; so can a long-lived process).  The
**   VFS itself is registered once; the new stats file is mapped in place of
**   the old one under the mutex.  Its current sizes restart from zero plus
**   the files that are open right now; closed-but-known files are forgotten
**   (they belong to the old accounting).
**
** LIMITATIONS
**
**   - Counts what this process opened, with the size it had at open.  Files
**     that exist but were never opened here (say a leftover -shm from another
**     process) are not counted until opened.
**   - Updates are made under a pthread mutex, so threads in one process see
**     consistent counters.  A reader in another process (the parent) reads
**     without any lock and may see a value torn mid-update; the parent reads
**     after the worker exits or as a progress hint, where that is harmless.
**   - The quota check and the write it guards are not one atomic step: two
**     threads growing files at the same moment could pass the quota by one
**     write.  Preflight drives one connection per process.
**   - The shm size is (highest region mapped + 1) * region size, per
**     database path; an -shm file left larger by another process is counted
**     only as far as this process maps it.
**   - Assumes the real VFS's io methods are version 3 (the unix VFS is).
**   - One process at a time per stats file: each one's current sizes are its
**     own open files, so two processes counting into one file at once would
**     overwrite each other's current values (peaks would still be kept).
**   - Recreating the stats file (spacevfs_stats_create) while a worker has it
**     mapped truncates it under that worker: don't.
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sqlite3.h>

#include "pagecache.h"
#include "spacevfs.h"

/*
** Size of the stats file: one spacevfs_stats, mapped whole.
*/
#define SPACEVFS_STATS_SIZE ((off_t)sizeof(spacevfs_stats))

/*
** Shorthand for the 64-bit signed integer SQLite uses for sizes and offsets.
*/
typedef sqlite3_int64 i64;

typedef struct SpaceNode SpaceNode;
typedef struct SpaceFile SpaceFile;

/* A byte range of a file, [iStart, iEnd). */
typedef struct SpaceRange { i64 iStart; i64 iEnd; } SpaceRange;

/*
** What is counted for one file on disk.  All fields are guarded by
** gSpace.mutex.
*/
struct SpaceNode {
  char *zName;          /* Path, for lookup by xDelete; NULL if anonymous */
  int eClass;           /* SPACEVFS_CLASS_* of the file */
  int nRef;             /* Open SpaceFile handles counting into this node */
  int nShmRef;          /* Handles that have the -shm mapped */
  int bUnlinked;        /* xDelete while still open: drop at last close */
  int bEmbedded;        /* Lives inside a SpaceFile: never freed */
  i64 szFile;           /* Counted size of the file */
  i64 szShm;            /* Counted size of its -shm (main databases only) */
  SpacePages *pPages;   /* Its pages in the kernel's page cache (pagecache.h) */
  SpaceNode *pNext;     /* Next in gSpace.pNodes */
};

/*
** An open file.  The real file's memory follows this struct directly.
*/
struct SpaceFile {
  sqlite3_file base;    /* IO methods: must be first */
  sqlite3_file *pReal;  /* The real file, at &this[1] */
  SpaceNode *pNode;     /* Where this file's size is counted */
  int eClass;           /* Copy of pNode->eClass for the write path */
  int szChunk;          /* SQLITE_FCNTL_CHUNK_SIZE as last set, or 0 */
  int bShm;             /* This handle has the -shm mapped */
  int bDeleteOnClose;   /* The file goes away when this handle closes */
  i64 iReadEnd;         /* Where this handle's last read ended: a read there streams on */
  SpaceRange *aDirty;   /* Byte ranges written since this handle's last sync */
  int nDirty;           /* Ranges in aDirty */
  int nDirtyAlloc;      /* Ranges aDirty has room for */
  SpaceNode sAnon;      /* The node of a delete-on-close file */
};

/*
** Process-wide state.
*/
static struct {
  sqlite3_vfs base;            /* The VFS registered as SPACEVFS_NAME */
  sqlite3_vfs *pReal;          /* The VFS it wraps; NULL until registered */
  spacevfs_stats *pStats;      /* The mmapped stats file */
  SpaceNode *pNodes;           /* Every node in use, named or embedded */
  pthread_mutex_t mutex;       /* Guards pStats contents, pNodes and nodes */
  void (*xIoHook)(void);       /* Called after each counted read, write, sync */
  int eFault;                  /* SPACEVFS_FAULT_* armed in this process */
  i64 nFaultAt;                /* The durable sync or write it fires at */
  i64 nMainWrites;             /* Main database writes in this process, once armed */
  int bRecording;              /* Operations are logged to fdLog */
  int fdLog;                   /* The operation log (spacevfs_record_operations) */
  int bCountFlushesOnly;       /* Syncs are counted, not passed on (spacevfs_count_flushes_only) */
  int bPagesPaused;            /* Reads leave the page cache as it is (spacevfs_pause_pages) */
} gSpace = { .mutex = PTHREAD_MUTEX_INITIALIZER };

#define REALVFS (gSpace.pReal)
#define REALFILE(pFile) (((SpaceFile*)(pFile))->pReal)

/* -------------------------------------------------------------------------
** Counters.  Every function here expects gSpace.mutex to be held.
*/

/* Move the current size of class eClass by nDelta in both counter sets. */
static void spaceAdjust(int eClass, i64 nDelta){
  spacevfs_stats *pS = gSpace.pStats;
  spacevfs_counters *aSet[2];
  int i;
  if( nDelta==0 || pS==0 ) return;
  aSet[0] = &pS->run;
  aSet[1] = &pS->window;
  for(i=0; i<2; i++){
    spacevfs_counters *pC = aSet[i];
    pC->bytes[eClass] += nDelta;
    pC->total_bytes += nDelta;
    if( pC->bytes[eClass]>pC->peak_bytes[eClass] ){
      pC->peak_bytes[eClass] = pC->bytes[eClass];
    }
    if( pC->total_bytes>pC->peak_total_bytes ){
      pC->peak_total_bytes = pC->total_bytes;
    }
  }
}

/*
** True (and full_errors incremented) if growing by nGrow bytes would take
** the total past the quota.
*/
static int spaceOverQuota(i64 nGrow){
  spacevfs_stats *pS = gSpace.pStats;
  if( pS==0 || pS->quota_bytes<0 || nGrow<=0 ) return 0;
  if( pS->run.total_bytes + nGrow <= pS->quota_bytes ) return 0;
  pS->full_errors++;
  return 1;
}

/* Note in the stats file that the armed fault fired, on a file of eClass. */
static void spaceRecordFault(int eClass){
  spacevfs_stats *pS = gSpace.pStats;
  pS->fault_hits++;
  pS->fault_class = eClass;
  pS->fault_tag = pS->window_tag;
}

/* A file a sync makes durable: the database, its journal or its WAL. */
static int spaceIsDurable(int eClass){
  return eClass==SPACEVFS_CLASS_MAIN || eClass==SPACEVFS_CLASS_JOURNAL
      || eClass==SPACEVFS_CLASS_WAL;
}

/*
** Append one record (and nData bytes of aData after it) to the operation
** log, for files of the classes a power cut matters to.  One writev, so that
** a kill between two records never leaves half of one.
*/
static void spaceLog(int eOp, int eClass, int flags, i64 iOfst, i64 nData,
                     const void *aData){
  spacevfs_record r;
  struct iovec a[2];
  if( !spaceIsDurable(eClass) ) return;
  memset(&r, 0, sizeof(r));
  r.op = (uint8_t)eOp;
  r.file_class = (uint8_t)eClass;
  r.flags = (uint16_t)flags;
  r.offset = iOfst;
  r.length = nData;
  a[0].iov_base = &r;
  a[0].iov_len = sizeof(r);
  a[1].iov_base = (void*)aData;
  a[1].iov_len = aData ? (size_t)nData : 0;
  /* A short or failed write shows as a truncated log, which the parent refuses. */
  (void)!writev(gSpace.fdLog, a, aData ? 2 : 1);
}

/* The class of a path xDelete names, from the suffix SQLite gives it. */
static int spaceClassOfPath(const char *zPath){
  size_t n = strlen(zPath);
  if( n>8 && strcmp(zPath+n-8, "-journal")==0 ) return SPACEVFS_CLASS_JOURNAL;
  if( n>4 && strcmp(zPath+n-4, "-wal")==0 ) return SPACEVFS_CLASS_WAL;
  return SPACEVFS_CLASS_TEMP;
}

/* Set the counted size of pNode's file to szNew. */
static void spaceSetSize(SpaceNode *pNode, i64 szNew){
  spaceAdjust(pNode->eClass, szNew - pNode->szFile);
  pNode->szFile = szNew;
}

/* The same for the node's -shm. */
static void spaceSetShmSize(SpaceNode *pNode, i64 szNew){
  spaceAdjust(SPACEVFS_CLASS_SHM, szNew - pNode->szShm);
  pNode->szShm = szNew;
}

/* Frees a node already out of the list (one embedded in its file stays). */
static void spaceFreeNode(SpaceNode *pNode){
  spacePagesDetach(pNode->pPages, 0);
  pNode->pPages = 0;
  if( !pNode->bEmbedded ){
    sqlite3_free(pNode->zName);
    sqlite3_free(pNode);
  }
}

/* Subtract everything pNode counts, unlink it from the list, free it. */
static void spaceDropNode(SpaceNode *pNode){
  SpaceNode **pp;
  spaceSetSize(pNode, 0);
  spaceSetShmSize(pNode, 0);
  /* The kernel drops a deleted file's pages. */
  spacePagesDetach(pNode->pPages, 1);
  pNode->pPages = 0;
  for(pp=&gSpace.pNodes; *pp; pp=&(*pp)->pNext){
    if( *pp==pNode ){ *pp = pNode->pNext; break; }
  }
  spaceFreeNode(pNode);
}

/* The named node for zName, or NULL. */
static SpaceNode *spaceFindNode(const char *zName){
  SpaceNode *p;
  for(p=gSpace.pNodes; p; p=p->pNext){
    if( p->zName && strcmp(p->zName, zName)==0 ) return p;
  }
  return 0;
}

/* The class of a file opened with these SQLITE_OPEN_* flags. */
static int spaceClassOf(int flags){
  if( flags & SQLITE_OPEN_MAIN_DB ) return SPACEVFS_CLASS_MAIN;
  if( flags & (SQLITE_OPEN_MAIN_JOURNAL|SQLITE_OPEN_SUPER_JOURNAL) ){
    return SPACEVFS_CLASS_JOURNAL;
  }
  if( flags & SQLITE_OPEN_WAL ) return SPACEVFS_CLASS_WAL;
  /* SUBJOURNAL, TEMP_DB, TEMP_JOURNAL, TRANSIENT_DB */
  return SPACEVFS_CLASS_TEMP;
}

/* -------------------------------------------------------------------------
** io methods.
*/

/* Orders ranges by where they start. */
static int spaceRangeCompare(const void *pA, const void *pB){
  i64 a = ((const SpaceRange*)pA)->iStart, b = ((const SpaceRange*)pB)->iStart;
  return a<b ? -1 : a>b;
}

/*
** Sort the handle's dirty ranges and merge those that overlap or touch, in
** place: what is left are the extents a flush writes, each a run of bytes.
*/
static void spaceMergeDirty(SpaceFile *p){
  int i, n = 0;
  if( p->nDirty<2 ) return;
  qsort(p->aDirty, p->nDirty, sizeof(SpaceRange), spaceRangeCompare);
  for(i=1; i<p->nDirty; i++){
    if( p->aDirty[i].iStart<=p->aDirty[n].iEnd ){
      if( p->aDirty[i].iEnd>p->aDirty[n].iEnd ) p->aDirty[n].iEnd = p->aDirty[i].iEnd;
    }else{
      p->aDirty[++n] = p->aDirty[i];
    }
  }
  p->nDirty = n + 1;
}

/*
** The bytes a flush of the merged dirty ranges writes: every page they touch,
** once (two ranges that end and start in one page share it).
*/
static i64 spaceDirtyPageBytes(SpaceFile *p){
  i64 nPages = 0, iLast = -1;
  int i;
  for(i=0; i<p->nDirty; i++){
    i64 iFirst = p->aDirty[i].iStart/SPACE_PAGE_SIZE;
    i64 iEnd = (p->aDirty[i].iEnd + SPACE_PAGE_SIZE - 1)/SPACE_PAGE_SIZE;
    if( iFirst<=iLast ) iFirst = iLast + 1;
    if( iEnd>iFirst ) nPages += iEnd - iFirst;
    if( iEnd-1>iLast ) iLast = iEnd - 1;
  }
  return nPages*SPACE_PAGE_SIZE;
}

/*
** Remember a write of a durable file until its next sync.  A write that
** carries on from the last one extends its range; when the array is full, it
** is merged first, and grown only if merging freed too little.  If memory
** runs out the range is dropped: the count is the device clock's, and a
** flush is then counted as fewer extents, never as a failed write.
*/
static void spaceNoteDirty(SpaceFile *p, i64 iStart, i64 iEnd){
  if( p->nDirty>0 && p->aDirty[p->nDirty-1].iEnd==iStart ){
    p->aDirty[p->nDirty-1].iEnd = iEnd;
    return;
  }
  if( p->nDirty==p->nDirtyAlloc ){
    spaceMergeDirty(p);
    if( p->nDirty*2>=p->nDirtyAlloc ){
      int nNew = p->nDirtyAlloc ? p->nDirtyAlloc*2 : 64;
      SpaceRange *aNew = realloc(p->aDirty, nNew*sizeof(SpaceRange));
      if( aNew==0 ) return;
      p->aDirty = aNew;
      p->nDirtyAlloc = nNew;
    }
  }
  p->aDirty[p->nDirty].iStart = iStart;
  p->aDirty[p->nDirty].iEnd = iEnd;
  p->nDirty++;
}

/*
** Close the real file, then forget this handle.  A delete-on-close file is
** gone now, so subtract it; a named file stays counted (it is still on disk)
** unless it was deleted while open.
*/
static int spaceClose(sqlite3_file *pFile){
  SpaceFile *p = (SpaceFile*)pFile;
  SpaceNode *pNode = p->pNode;
  int rc = p->pReal->pMethods->xClose(p->pReal);
  pthread_mutex_lock(&gSpace.mutex);
  if( p->bShm ){
    pNode->nShmRef--;
    p->bShm = 0;
  }
  pNode->nRef--;
  if( p->bDeleteOnClose || (pNode->bUnlinked && pNode->nRef==0) ){
    spaceDropNode(pNode);
  }
  pthread_mutex_unlock(&gSpace.mutex);
  free(p->aDirty);
  p->aDirty = 0;
  p->nDirty = p->nDirtyAlloc = 0;
  p->pNode = 0;
  return rc;
}

/* Run the I/O hook, if one is set (with gSpace.mutex not held). */
static void spaceAfterIo(void){
  void (*xHook)(void);
  pthread_mutex_lock(&gSpace.mutex);
  xHook = gSpace.xIoHook;
  pthread_mutex_unlock(&gSpace.mutex);
  if( xHook ) xHook();
}

/*
** Read, counted per class: calls and bytes asked for, and, through the page
** cache (pagecache.h), the pages it found there and the bytes and random
** reads that went to flash.
*/
static int spaceRead(sqlite3_file *pFile, void *zBuf, int iAmt,
                     sqlite3_int64 iOfst){
  SpaceFile *p = (SpaceFile*)pFile;
  int rc = p->pReal->pMethods->xRead(p->pReal, zBuf, iAmt, iOfst);
  pthread_mutex_lock(&gSpace.mutex);
  if( gSpace.pStats ){
    spacevfs_stats *pS = gSpace.pStats;
    pS->run.reads[p->eClass]++;
    pS->window.reads[p->eClass]++;
    pS->run.bytes_read[p->eClass] += iAmt;
    pS->window.bytes_read[p->eClass] += iAmt;
    if( !gSpace.bPagesPaused ){
      int64_t nCached = 0;
      i64 nFlash = spacePagesTouch(p->pNode->pPages, iOfst, iAmt, &nCached);
      pS->run.cached_pages[p->eClass] += nCached;
      pS->window.cached_pages[p->eClass] += nCached;
      pS->run.flash_bytes_read[p->eClass] += nFlash*SPACE_PAGE_SIZE;
      pS->window.flash_bytes_read[p->eClass] += nFlash*SPACE_PAGE_SIZE;
      if( nFlash>0 && iOfst!=p->iReadEnd ){
        pS->run.random_reads[p->eClass]++;
        pS->window.random_reads[p->eClass]++;
      }
    }
  }
  p->iReadEnd = iOfst + iAmt;
  pthread_mutex_unlock(&gSpace.mutex);
  spaceAfterIo();
  return rc;
}

/*
** Refuse a write that would grow the file past the quota; otherwise write
** and count the bytes and any growth.
*/
static int spaceWrite(sqlite3_file *pFile, const void *zBuf, int iAmt,
                      sqlite3_int64 iOfst){
  SpaceFile *p = (SpaceFile*)pFile;
  i64 iEnd = iOfst + iAmt;
  int rc;
  pthread_mutex_lock(&gSpace.mutex);
  if( gSpace.pStats ){
    spacevfs_stats *pS = gSpace.pStats;
    pS->writes++;
    if( gSpace.eFault==SPACEVFS_FAULT_FULL_AT_WRITE && pS->writes==gSpace.nFaultAt ){
      /* The disk fills here and stays full: a quota of what is in use now. */
      spaceRecordFault(p->eClass);
      pS->quota_bytes = pS->run.total_bytes;
      pS->full_errors++;
      pthread_mutex_unlock(&gSpace.mutex);
      return SQLITE_FULL;
    }
    if( gSpace.eFault==SPACEVFS_FAULT_KILL_AT_MAIN_WRITE && p->eClass==SPACEVFS_CLASS_MAIN
     && ++gSpace.nMainWrites==gSpace.nFaultAt && pS->fault_hits==0 ){
      /* Before the write: what a kill leaves is everything written up to here. */
      spaceRecordFault(p->eClass);
      raise(SIGKILL);
    }
  }
  if( iEnd>p->pNode->szFile && spaceOverQuota(iEnd - p->pNode->szFile) ){
    pthread_mutex_unlock(&gSpace.mutex);
    return SQLITE_FULL;
  }
  pthread_mutex_unlock(&gSpace.mutex);
  rc = p->pReal->pMethods->xWrite(p->pReal, zBuf, iAmt, iOfst);
  if( rc==SQLITE_OK ){
    pthread_mutex_lock(&gSpace.mutex);
    if( gSpace.pStats ){
      gSpace.pStats->run.bytes_written[p->eClass] += iAmt;
      gSpace.pStats->window.bytes_written[p->eClass] += iAmt;
      gSpace.pStats->run.write_calls[p->eClass]++;
      gSpace.pStats->window.write_calls[p->eClass]++;
      if( spaceIsDurable(p->eClass) ) spaceNoteDirty(p, iOfst, iEnd);
      /* Every page written is copied into the page cache, and stays there. */
      {
        int64_t nCached = 0;
        i64 nPages = spacePagesTouch(p->pNode->pPages, iOfst, iAmt, &nCached) + nCached;
        gSpace.pStats->run.cached_pages[p->eClass] += nPages;
        gSpace.pStats->window.cached_pages[p->eClass] += nPages;
      }
    }
    if( iEnd>p->pNode->szFile ) spaceSetSize(p->pNode, iEnd);
    if( gSpace.bRecording ) spaceLog(SPACEVFS_OP_WRITE, p->eClass, 0, iOfst, iAmt, zBuf);
    pthread_mutex_unlock(&gSpace.mutex);
    spaceAfterIo();
  }
  return rc;
}

/*
** Truncate.  The unix VFS rounds the new size up to the chunk size, if one
** is set, which can even grow the file; count what it actually does.
*/
static int spaceTruncate(sqlite3_file *pFile, sqlite3_int64 size){
  SpaceFile *p = (SpaceFile*)pFile;
  int rc = p->pReal->pMethods->xTruncate(p->pReal, size);
  if( rc==SQLITE_OK ){
    if( p->szChunk>0 ){
      size = ((size + p->szChunk - 1)/p->szChunk) * p->szChunk;
    }
    pthread_mutex_lock(&gSpace.mutex);
    spaceSetSize(p->pNode, size);
    spacePagesTruncate(p->pNode->pPages, size);
    if( gSpace.bRecording ) spaceLog(SPACEVFS_OP_TRUNCATE, p->eClass, 0, size, 0, 0);
    pthread_mutex_unlock(&gSpace.mutex);
  }
  return rc;
}

/*
** Sync, counted per class.  A sync of the main database, its journal or its
** WAL is a durable point of the run (what a kill sweep kills just before).
** It is passed on to the real file unless only flushes are counted: then it
** is counted, logged and can be killed at all the same, and returns at once.
*/
static int spaceSync(sqlite3_file *pFile, int flags){
  SpaceFile *p = (SpaceFile*)pFile;
  int rc = SQLITE_OK;
  int bFlush;
  pthread_mutex_lock(&gSpace.mutex);
  bFlush = !gSpace.bCountFlushesOnly;
  if( gSpace.bRecording ) spaceLog(SPACEVFS_OP_SYNC, p->eClass, flags, 0, 0, 0);
  if( gSpace.pStats ){
    spacevfs_stats *pS = gSpace.pStats;
    pS->run.syncs[p->eClass]++;
    pS->window.syncs[p->eClass]++;
    if( spaceIsDurable(p->eClass) ){
      i64 nFlushed;
      spaceMergeDirty(p);
      nFlushed = spaceDirtyPageBytes(p);
      pS->run.flushed_extents[p->eClass] += p->nDirty;
      pS->window.flushed_extents[p->eClass] += p->nDirty;
      pS->run.flushed_bytes[p->eClass] += nFlushed;
      pS->window.flushed_bytes[p->eClass] += nFlushed;
      p->nDirty = 0;
      pS->durable_syncs++;
      if( gSpace.eFault==SPACEVFS_FAULT_KILL_BEFORE_SYNC
       && pS->durable_syncs==gSpace.nFaultAt ){
        /* The record is in the shared mapping, which outlives this process. */
        spaceRecordFault(p->eClass);
        raise(SIGKILL);
      }
    }
  }
  pthread_mutex_unlock(&gSpace.mutex);
  if( bFlush ) rc = p->pReal->pMethods->xSync(p->pReal, flags);
  spaceAfterIo();
  return rc;
}

static int spaceFileSize(sqlite3_file *pFile, sqlite3_int64 *pSize){
  return REALFILE(pFile)->pMethods->xFileSize(REALFILE(pFile), pSize);
}
static int spaceLock(sqlite3_file *pFile, int eLock){
  return REALFILE(pFile)->pMethods->xLock(REALFILE(pFile), eLock);
}
static int spaceUnlock(sqlite3_file *pFile, int eLock){
  return REALFILE(pFile)->pMethods->xUnlock(REALFILE(pFile), eLock);
}
static int spaceCheckReservedLock(sqlite3_file *pFile, int *pResOut){
  return REALFILE(pFile)->pMethods->xCheckReservedLock(REALFILE(pFile), pResOut);
}

/*
** SQLITE_FCNTL_SIZE_HINT may extend the file.  The unix VFS (fcntlSizeHint)
** extends it to the hint rounded up to the chunk size when a chunk size is
** set, or ftruncates it to the hint when mmap is on (and the hint is past
** the mapped size); otherwise it does nothing.  Predict that, refuse growth
** past the quota (the pager ignores a hint's result, and the writes that
** follow are refused in turn), and after the real call count the size the
** file really has.
**
** SQLITE_FCNTL_CHUNK_SIZE is remembered, for the two predictions above.
*/
static int spaceFileControl(sqlite3_file *pFile, int op, void *pArg){
  SpaceFile *p = (SpaceFile*)pFile;
  sqlite3_file *pReal = p->pReal;
  int rc;
  if( op==SQLITE_FCNTL_SIZE_HINT ){
    i64 nHint = *(i64*)pArg;
    i64 nNew = 0;
    i64 szReal = 0;
    i64 szNow;
    if( p->szChunk>0 ){
      nNew = ((nHint + p->szChunk - 1)/p->szChunk) * p->szChunk;
    }else{
      i64 mxMmap = -1;   /* -1 queries the limit without changing it */
      if( pReal->pMethods->xFileControl(pReal, SQLITE_FCNTL_MMAP_SIZE, &mxMmap)
           ==SQLITE_OK && mxMmap>0 ){
        nNew = nHint;
      }
    }
    pthread_mutex_lock(&gSpace.mutex);
    szNow = p->pNode->szFile;
    if( nNew>szNow && spaceOverQuota(nNew - szNow) ){
      pthread_mutex_unlock(&gSpace.mutex);
      return SQLITE_FULL;
    }
    pthread_mutex_unlock(&gSpace.mutex);
    rc = pReal->pMethods->xFileControl(pReal, op, pArg);
    if( rc==SQLITE_OK && nNew>szNow
     && pReal->pMethods->xFileSize(pReal, &szReal)==SQLITE_OK ){
      pthread_mutex_lock(&gSpace.mutex);
      spaceSetSize(p->pNode, szReal);
      pthread_mutex_unlock(&gSpace.mutex);
    }
    return rc;
  }
  rc = pReal->pMethods->xFileControl(pReal, op, pArg);
  if( rc==SQLITE_OK && op==SQLITE_FCNTL_CHUNK_SIZE ){
    p->szChunk = *(int*)pArg;
  }
  if( rc==SQLITE_OK && op==SQLITE_FCNTL_VFSNAME ){
    char *zOld = *(char**)pArg;
    *(char**)pArg = sqlite3_mprintf(SPACEVFS_NAME "/%z", zOld);
  }
  return rc;
}

static int spaceSectorSize(sqlite3_file *pFile){
  return REALFILE(pFile)->pMethods->xSectorSize(REALFILE(pFile));
}
static int spaceDeviceCharacteristics(sqlite3_file *pFile){
  return REALFILE(pFile)->pMethods->xDeviceCharacteristics(REALFILE(pFile));
}

/*
** Map a region of the -shm file.  The file is extended to hold region
** iRegion, so it grows to (iRegion+1)*szRegion the first time a region past
** the current end is mapped (counted once per database path).
*/
static int spaceShmMap(sqlite3_file *pFile, int iRegion, int szRegion,
                       int bExtend, void volatile **pp){
  SpaceFile *p = (SpaceFile*)pFile;
  i64 iEnd = (i64)(iRegion+1) * szRegion;
  int rc;
  pthread_mutex_lock(&gSpace.mutex);
  if( bExtend && iEnd>p->pNode->szShm
   && spaceOverQuota(iEnd - p->pNode->szShm) ){
    pthread_mutex_unlock(&gSpace.mutex);
    *pp = 0;
    return SQLITE_FULL;
  }
  pthread_mutex_unlock(&gSpace.mutex);
  rc = p->pReal->pMethods->xShmMap(p->pReal, iRegion, szRegion, bExtend, pp);
  if( rc==SQLITE_OK && *pp ){
    pthread_mutex_lock(&gSpace.mutex);
    if( !p->bShm ){
      p->bShm = 1;
      p->pNode->nShmRef++;
    }
    if( iEnd>p->pNode->szShm ) spaceSetShmSize(p->pNode, iEnd);
    pthread_mutex_unlock(&gSpace.mutex);
  }
  return rc;
}

static int spaceShmLock(sqlite3_file *pFile, int ofst, int n, int flags){
  return REALFILE(pFile)->pMethods->xShmLock(REALFILE(pFile), ofst, n, flags);
}
static void spaceShmBarrier(sqlite3_file *pFile){
  REALFILE(pFile)->pMethods->xShmBarrier(REALFILE(pFile));
}

/*
** Unmap the -shm.  The unix VFS deletes the file when deleteFlag is set and
** this was the last handle in the process to have it mapped; do the same.
*/
static int spaceShmUnmap(sqlite3_file *pFile, int deleteFlag){
  SpaceFile *p = (SpaceFile*)pFile;
  int rc = p->pReal->pMethods->xShmUnmap(p->pReal, deleteFlag);
  pthread_mutex_lock(&gSpace.mutex);
  if( p->bShm ){
    p->bShm = 0;
    p->pNode->nShmRef--;
  }
  if( rc==SQLITE_OK && deleteFlag && p->pNode->nShmRef==0 ) spaceSetShmSize(p->pNode, 0);
  pthread_mutex_unlock(&gSpace.mutex);
  return rc;
}

static int spaceFetch(sqlite3_file *pFile, sqlite3_int64 iOfst, int iAmt,
                      void **pp){
  return REALFILE(pFile)->pMethods->xFetch(REALFILE(pFile), iOfst, iAmt, pp);
}
static int spaceUnfetch(sqlite3_file *pFile, sqlite3_int64 iOfst, void *pPage){
  return REALFILE(pFile)->pMethods->xUnfetch(REALFILE(pFile), iOfst, pPage);
}

static const sqlite3_io_methods spaceIoMethods = {
  3,                            /* iVersion */
  spaceClose,                   /* xClose */
  spaceRead,                    /* xRead */
  spaceWrite,                   /* xWrite */
  spaceTruncate,                /* xTruncate */
  spaceSync,                    /* xSync */
  spaceFileSize,                /* xFileSize */
  spaceLock,                    /* xLock */
  spaceUnlock,                  /* xUnlock */
  spaceCheckReservedLock,       /* xCheckReservedLock */
  spaceFileControl,             /* xFileControl */
  spaceSectorSize,              /* xSectorSize */
  spaceDeviceCharacteristics,   /* xDeviceCharacteristics */
  spaceShmMap,                  /* xShmMap */
  spaceShmLock,                 /* xShmLock */
  spaceShmBarrier,              /* xShmBarrier */
  spaceShmUnmap,                /* xShmUnmap */
  spaceFetch,                   /* xFetch */
  spaceUnfetch                  /* xUnfetch */
};

/* -------------------------------------------------------------------------
** VFS methods.
*/

/*
** Open the real file, then count it with the size it has now (an existing
** database is not 0 bytes).
*/
static int spaceOpen(sqlite3_vfs *pVfs, sqlite3_filename zName,
                     sqlite3_file *pFile, int flags, int *pOutFlags){
  SpaceFile *p = (SpaceFile*)pFile;
  SpaceNode *pNode;
  char *zCopy = 0;
  i64 szReal = 0;
  int bCreated = 0;
  int rc;
  (void)pVfs;
  memset(p, 0, sizeof(*p));
  p->pReal = (sqlite3_file*)&p[1];
  p->eClass = spaceClassOf(flags);
  p->bDeleteOnClose = zName==0 || (flags & SQLITE_OPEN_DELETEONCLOSE)!=0;
  if( !p->bDeleteOnClose ){
    zCopy = sqlite3_mprintf("%s", zName);
    if( zCopy==0 ) return SQLITE_NOMEM;
  }
  if( gSpace.bRecording && !p->bDeleteOnClose && (flags & SQLITE_OPEN_CREATE) ){
    bCreated = access(zName, F_OK)!=0;
  }
  rc = REALVFS->xOpen(REALVFS, zName, p->pReal, flags, pOutFlags);
  if( rc!=SQLITE_OK ){
    /* pReal->pMethods may be set: SQLite calls our xClose only if ours is */
    if( p->pReal->pMethods ) p->pReal->pMethods->xClose(p->pReal);
    sqlite3_free(zCopy);
    pFile->pMethods = 0;
    return rc;
  }
  if( p->pReal->pMethods->xFileSize(p->pReal, &szReal)!=SQLITE_OK ) szReal = 0;

  pthread_mutex_lock(&gSpace.mutex);
  if( p->bDeleteOnClose ){
    pNode = &p->sAnon;
    pNode->bEmbedded = 1;
    pNode->eClass = p->eClass;
    pNode->pNext = gSpace.pNodes;
    gSpace.pNodes = pNode;
  }else if( (pNode = spaceFindNode(zCopy))!=0 ){
    sqlite3_free(zCopy);
    pNode->bUnlinked = 0;   /* a new file under an unlinked name */
  }else{
    pNode = sqlite3_malloc(sizeof(*pNode));
    if( pNode==0 ){
      pthread_mutex_unlock(&gSpace.mutex);
      sqlite3_free(zCopy);
      p->pReal->pMethods->xClose(p->pReal);
      pFile->pMethods = 0;
      return SQLITE_NOMEM;
    }
    memset(pNode, 0, sizeof(*pNode));
    pNode->zName = zCopy;
    pNode->eClass = p->eClass;
    pNode->pNext = gSpace.pNodes;
    gSpace.pNodes = pNode;
  }
  pNode->nRef++;
  p->pNode = pNode;
  if( pNode->pPages==0 ) pNode->pPages = spacePagesAttach(pNode->zName, szReal);
  spaceSetSize(pNode, szReal);
  if( bCreated && gSpace.bRecording ) spaceLog(SPACEVFS_OP_CREATE, p->eClass, 0, 0, 0, 0);
  pthread_mutex_unlock(&gSpace.mutex);

  pFile->pMethods = &spaceIoMethods;
  return SQLITE_OK;
}

/*
** Delete a file by path: subtract what was counted for it (see OVERVIEW for
** why the node's last known size is the right amount and no stat is needed).
*/
static int spaceDelete(sqlite3_vfs *pVfs, const char *zPath, int dirSync){
  int rc;
  int bFlush;
  SpaceNode *pNode;
  (void)pVfs;
  pthread_mutex_lock(&gSpace.mutex);
  bFlush = !gSpace.bCountFlushesOnly;
  pthread_mutex_unlock(&gSpace.mutex);
  /* The log keeps the dirSync SQLite asked for: a power cut is judged by it. */
  rc = REALVFS->xDelete(REALVFS, zPath, bFlush ? dirSync : 0);
  if( rc==SQLITE_OK || rc==SQLITE_IOERR_DELETE_NOENT ){   /* gone either way */
    pthread_mutex_lock(&gSpace.mutex);
    if( gSpace.bRecording && rc==SQLITE_OK ){
      spaceLog(SPACEVFS_OP_DELETE, spaceClassOfPath(zPath), dirSync, 0, 0, 0);
    }
    pNode = spaceFindNode(zPath);
    if( pNode ){
      if( pNode->nRef==0 ){
        spaceDropNode(pNode);
      }else{
        pNode->bUnlinked = 1;   /* the inode lives until the last close */
      }
    }
    pthread_mutex_unlock(&gSpace.mutex);
  }
  return rc;
}

/* -------------------------------------------------------------------------
** Stats file.
*/

/* Zero the current sizes (peaks, bytes written and syncs are kept). */
static void spaceZeroCurrent(spacevfs_stats *pS){
  memset(pS->run.bytes, 0, sizeof(pS->run.bytes));
  pS->run.total_bytes = 0;
  memset(pS->window.bytes, 0, sizeof(pS->window.bytes));
  pS->window.total_bytes = 0;
}

/* Open and map zPath read-write; NULL (errno set) if it is not usable. */
static spacevfs_stats *spaceMapStats(const char *zPath){
  struct stat st;
  spacevfs_stats *pS;
  int fd = open(zPath, O_RDWR|O_CLOEXEC);
  if( fd<0 ) return 0;
  if( fstat(fd, &st)!=0 || st.st_size<SPACEVFS_STATS_SIZE ){
    close(fd);
    errno = EINVAL;
    return 0;
  }
  pS = mmap(0, sizeof(*pS), PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);   /* the mapping keeps the file */
  if( pS==MAP_FAILED ) return 0;
  if( pS->magic!=SPACEVFS_MAGIC || pS->layout_version!=SPACEVFS_LAYOUT_VERSION ){
    munmap(pS, sizeof(*pS));
    errno = EINVAL;
    return 0;
  }
  return pS;
}

/* -------------------------------------------------------------------------
** Entry points (see spacevfs.h).
*/

/*
** Create or truncate zPath (mode 0600) holding a fresh stats struct with
** quotaBytes (-1 for no limit).  Returns 0 or an errno value.
*/
int spacevfs_stats_create(const char *zPath, int64_t quotaBytes){
  spacevfs_stats s;
  const char *z = (const char*)&s;
  size_t n = sizeof(s);
  int fd, err = 0;
  memset(&s, 0, sizeof(s));
  s.magic = SPACEVFS_MAGIC;
  s.layout_version = SPACEVFS_LAYOUT_VERSION;
  s.quota_bytes = quotaBytes<0 ? -1 : quotaBytes;
  fd = open(zPath, O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0600);
  if( fd<0 ) return errno;
  while( n>0 ){
    ssize_t w = write(fd, z, n);
    if( w<0 ){
      if( errno==EINTR ) continue;
      err = errno;
      break;
    }
    z += w;
    n -= (size_t)w;
  }
  if( close(fd)!=0 && err==0 ) err = errno;
  return err ? err : spacePagesCreate(zPath);
}

/*
** Copy the stats in zPath into *pOut.  Returns 0, an errno value, or EINVAL
** for a file that is not a stats file of this layout.
*/
int spacevfs_stats_read(const char *zPath, spacevfs_stats *pOut){
  char *z = (char*)pOut;
  size_t n = sizeof(*pOut);
  int fd, err = 0;
  fd = open(zPath, O_RDONLY|O_CLOEXEC);
  if( fd<0 ) return errno;
  while( n>0 ){
    ssize_t r = read(fd, z, n);
    if( r<0 ){
      if( errno==EINTR ) continue;
      err = errno;
      break;
    }
    if( r==0 ){ err = EINVAL; break; }   /* too short to be a stats file */
    z += r;
    n -= (size_t)r;
  }
  close(fd);
  if( err==0 && (pOut->magic!=SPACEVFS_MAGIC
              || pOut->layout_version!=SPACEVFS_LAYOUT_VERSION) ){
    err = EINVAL;
  }
  if( err ) memset(pOut, 0, sizeof(*pOut));
  return err;
}

/*
** Map zStatsPath and register the shim as SPACEVFS_NAME (not the default).
**
**   spacevfs_stats_create("/job/space.stats", quota);   // parent
**   spacevfs_register("/job/space.stats");              // worker
**   sqlite3_open_v2(zDb, &db, flags, SPACEVFS_NAME);
**
** May be called again, with the same or another path: the new file is
** mapped in place of the old one.  In the file now mapped, the current sizes
** are zeroed and then set to the files this process has open right now;
** peaks, bytes written, syncs and full_errors are kept.  Returns SQLITE_OK,
** SQLITE_CANTOPEN if the stats file cannot be opened or is not a stats
** file, or SQLITE_ERROR if there is no default VFS.
*/
int spacevfs_register(const char *zStatsPath){
  spacevfs_stats *pNew, *pOld;
  SpaceNode **pp, *pNode;
  int rc = SQLITE_OK;
  int bFirst;

  rc = sqlite3_initialize();
  if( rc!=SQLITE_OK ) return rc;
  pNew = spaceMapStats(zStatsPath);
  if( pNew==0 ) return SQLITE_CANTOPEN;

  pthread_mutex_lock(&gSpace.mutex);
  bFirst = gSpace.pReal==0;
  if( bFirst ){
    sqlite3_vfs *pReal = sqlite3_vfs_find(0);
    if( pReal==0 ){
      pthread_mutex_unlock(&gSpace.mutex);
      munmap(pNew, sizeof(*pNew));
      return SQLITE_ERROR;
    }
    gSpace.pReal = pReal;
    gSpace.base = *pReal;             /* every method the unix one... */
    gSpace.base.pNext = 0;
    gSpace.base.zName = SPACEVFS_NAME;
    gSpace.base.szOsFile = (int)sizeof(SpaceFile) + pReal->szOsFile;
    gSpace.base.xOpen = spaceOpen;    /* ...but these two */
    gSpace.base.xDelete = spaceDelete;
  }

  pOld = gSpace.pStats;
  gSpace.pStats = pNew;
  spaceZeroCurrent(pNew);
  /* Open files' pages move to the new pages file (their bits to the old one's fate). */
  for(pNode=gSpace.pNodes; pNode; pNode=pNode->pNext){
    spacePagesDetach(pNode->pPages, 0);
    pNode->pPages = 0;
  }
  spacePagesMap(zStatsPath);
  /* Closed files belonged to the old accounting; open ones count here. */
  pp = &gSpace.pNodes;
  while( *pp ){
    pNode = *pp;
    if( pNode->nRef==0 ){
      *pp = pNode->pNext;
      spaceFreeNode(pNode);
      continue;
    }
    pNode->pPages = spacePagesAttach(pNode->zName, pNode->szFile);
    if( pNode->nShmRef==0 ) pNode->szShm = 0;
    spaceAdjust(pNode->eClass, pNode->szFile);
    spaceAdjust(SPACEVFS_CLASS_SHM, pNode->szShm);
    pp = &pNode->pNext;
  }
  pthread_mutex_unlock(&gSpace.mutex);

  if( pOld ) munmap(pOld, sizeof(*pOld));
  if( bFirst ) rc = sqlite3_vfs_register(&gSpace.base, 0);
  return rc;
}

/* Copy the stats as they are now (zeroes if not registered). */
void spacevfs_snapshot(spacevfs_stats *pOut){
  pthread_mutex_lock(&gSpace.mutex);
  if( gSpace.pStats ){
    *pOut = *gSpace.pStats;
  }else{
    memset(pOut, 0, sizeof(*pOut));
  }
  pthread_mutex_unlock(&gSpace.mutex);
}

/*
** Start a new window tagged tag: its current sizes and peaks start from the
** current sizes, its bytes written and syncs from zero.
*/
void spacevfs_window_begin(int32_t tag){
  spacevfs_stats *pS;
  pthread_mutex_lock(&gSpace.mutex);
  pS = gSpace.pStats;
  if( pS ){
    spacevfs_counters *pW = &pS->window;
    memcpy(pW->bytes, pS->run.bytes, sizeof(pW->bytes));
    memcpy(pW->peak_bytes, pS->run.bytes, sizeof(pW->peak_bytes));
    pW->total_bytes = pS->run.total_bytes;
    pW->peak_total_bytes = pS->run.total_bytes;
    memset(pW->bytes_written, 0, sizeof(pW->bytes_written));
    memset(pW->syncs, 0, sizeof(pW->syncs));
    memset(pW->write_calls, 0, sizeof(pW->write_calls));
    memset(pW->reads, 0, sizeof(pW->reads));
    memset(pW->bytes_read, 0, sizeof(pW->bytes_read));
    memset(pW->flushed_extents, 0, sizeof(pW->flushed_extents));
    memset(pW->random_reads, 0, sizeof(pW->random_reads));
    memset(pW->flash_bytes_read, 0, sizeof(pW->flash_bytes_read));
    memset(pW->cached_pages, 0, sizeof(pW->cached_pages));
    memset(pW->flushed_bytes, 0, sizeof(pW->flushed_bytes));
    pS->window_tag = tag;
    pS->window_start_bytes = pS->run.total_bytes;
  }
  pthread_mutex_unlock(&gSpace.mutex);
}

/* Set the hook run after each counted read, write and sync (see spacevfs.h). */
void spacevfs_set_io_hook(void (*xHook)(void)){
  pthread_mutex_lock(&gSpace.mutex);
  gSpace.xIoHook = xHook;
  pthread_mutex_unlock(&gSpace.mutex);
}

/* Count syncs without passing them on (see spacevfs.h). */
void spacevfs_count_flushes_only(int bOn){
  pthread_mutex_lock(&gSpace.mutex);
  gSpace.bCountFlushesOnly = bOn!=0;
  pthread_mutex_unlock(&gSpace.mutex);
}

/* The page cache's start and pauses (see spacevfs.h). */
void spacevfs_pages_warm_at_open(int bOn){
  pthread_mutex_lock(&gSpace.mutex);
  spacePagesWarmAtOpen(bOn);
  pthread_mutex_unlock(&gSpace.mutex);
}

int spacevfs_forget_pages(const char *zPath){
  SpaceNode *pNode;
  pthread_mutex_lock(&gSpace.mutex);
  pNode = spaceFindNode(zPath);
  if( pNode ) spacePagesTruncate(pNode->pPages, 0);
  pthread_mutex_unlock(&gSpace.mutex);
  return pNode ? 0 : ENOENT;
}

void spacevfs_pause_pages(int bOn){
  pthread_mutex_lock(&gSpace.mutex);
  gSpace.bPagesPaused = bOn!=0;
  pthread_mutex_unlock(&gSpace.mutex);
}

/* Arm a fault for this process (see spacevfs.h). */
void spacevfs_inject_fault(int kind, int64_t n){
  pthread_mutex_lock(&gSpace.mutex);
  gSpace.eFault = kind;
  gSpace.nFaultAt = n;
  gSpace.nMainWrites = 0;
  pthread_mutex_unlock(&gSpace.mutex);
}

/* Start logging operations to zLogPath (see spacevfs.h). */
int spacevfs_record_operations(const char *zLogPath){
  int fd = open(zLogPath, O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0600);
  if( fd<0 ) return errno;
  pthread_mutex_lock(&gSpace.mutex);
  if( gSpace.bRecording ) close(gSpace.fdLog);
  gSpace.fdLog = fd;
  gSpace.bRecording = 1;
  pthread_mutex_unlock(&gSpace.mutex);
  return 0;
}

/* Log that version is now committed (see spacevfs.h). */
void spacevfs_record_mark(int64_t version){
  pthread_mutex_lock(&gSpace.mutex);
  if( gSpace.bRecording ) spaceLog(SPACEVFS_OP_MARK, SPACEVFS_CLASS_MAIN, 0, version, 0, 0);
  pthread_mutex_unlock(&gSpace.mutex);
}
