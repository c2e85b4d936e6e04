/*
** pagecache.c: the kernel's page cache as the device clock sees it (see
** pagecache.h).
**
** LAYOUT OF THE SHARED PAGES FILE ("<stats path less .stats>.pages.stats")
**
**   A header of SPACE_PAGES_SLOTS slots, each naming a file by the 64-bit
**   FNV-1a hash of its path and holding the highest page ever set, then the
**   slots' bitmaps interleaved byte by byte: byte b of slot s is at
**   SPACE_PAGES_HEADER_BYTES + b*SPACE_PAGES_SLOTS + s.  So the file grows
**   with the largest file it tracks (a 1 GB database's 32 KiB of bits take
**   512 KiB), whichever slot that is; it is extended as bits are set, and
**   mapped whole at its most.  A job has a database, its journal and its
**   WAL, so the slots are plenty; a named file that finds none free counts
**   into bits of the process's own, as a temporary file does.
**
**   A hash that two paths share would let them share bits; the paths of one
**   job directory differ only in their suffixes, which FNV-1a spreads.
*/
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "pagecache.h"

typedef int64_t i64;

#define SPACE_PAGES_SLOTS 16
/* 4 MiB of bits: 32 Mi pages, a 128 GiB file; pages past it count as never cached. */
#define SPACE_PAGES_SLOT_BYTES ((i64)1 << 22)
#define SPACE_PAGES_HEADER_BYTES 4096
#define SPACE_PAGES_FILE_BYTES (SPACE_PAGES_HEADER_BYTES + SPACE_PAGES_SLOTS*SPACE_PAGES_SLOT_BYTES)
/* The file grows in steps of this many bytes. */
#define SPACE_PAGES_GROWTH ((i64)1 << 16)

typedef struct SpacePagesSlot {
  uint64_t hash;        /* FNV-1a of the path; 0 for a free slot */
  int64_t nHigh;        /* One past the highest page whose bit was ever set */
} SpacePagesSlot;

struct SpacePages {
  uint8_t *aBits;       /* One bit per page: byte b at aBits[b*nStride] */
  i64 nStride;          /* SPACE_PAGES_SLOTS in the shared file, 1 in the process's own */
  int64_t *pnHigh;      /* One past the highest page set (the slot's, or nOwnHigh) */
  int64_t nOwnHigh;     /* pnHigh of bits the process owns */
  int iSlot;            /* The shared slot, or -1 for bits of the process's own */
};

static struct {
  uint8_t *pFile;       /* The mapped pages file, or NULL */
  int fd;               /* Its descriptor, to extend it */
  i64 szFile;           /* Its size as last seen */
  int bWarmAtOpen;      /* spacePagesWarmAtOpen */
} gPages = { .fd = -1 };

static SpacePagesSlot *spaceSlots(void){ return (SpacePagesSlot*)gPages.pFile; }

static uint64_t spaceHash(const char *z){
  uint64_t h = 0xcbf29ce484222325ull;
  while( *z ){ h ^= (uint8_t)*z++; h *= 0x100000001b3ull; }
  return h ? h : 1;
}

static char *spacePagesPath(const char *zStatsPath){
  size_t n = strlen(zStatsPath);
  if( n>6 && strcmp(zStatsPath+n-6, ".stats")==0 ) n -= 6;
  return sqlite3_mprintf("%.*s.pages.stats", (int)n, zStatsPath);
}

/*
** Whether byte iByte of the mapped file is inside the file, extending the
** file if not.  A byte the file cannot be extended to is never touched (a
** mapping past the end of its file faults): its pages count as not cached.
*/
static int spacePagesReach(i64 iByte){
  struct stat st;
  i64 szWant;
  if( iByte<gPages.szFile ) return 1;
  /* Another launch of the job may have extended it already. */
  if( fstat(gPages.fd, &st)==0 ) gPages.szFile = st.st_size;
  if( iByte<gPages.szFile ) return 1;
  szWant = (iByte/SPACE_PAGES_GROWTH + 1)*SPACE_PAGES_GROWTH;
  if( szWant>SPACE_PAGES_FILE_BYTES ) szWant = SPACE_PAGES_FILE_BYTES;
  if( iByte>=szWant || ftruncate(gPages.fd, szWant)!=0 ) return 0;
  gPages.szFile = szWant;
  return 1;
}

/* The byte holding page iPage's bit, or NULL if it cannot be reached. */
static uint8_t *spaceBitByte(SpacePages *p, i64 iPage){
  uint8_t *pByte = p->aBits + (iPage>>3)*p->nStride;
  if( p->iSlot>=0 && !spacePagesReach(pByte - gPages.pFile) ) return 0;
  return pByte;
}

int spacePagesCreate(const char *zStatsPath){
  char *zPath = spacePagesPath(zStatsPath);
  int fd, err = 0;
  if( zPath==0 ) return ENOMEM;
  fd = open(zPath, O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0600);
  sqlite3_free(zPath);
  if( fd<0 ) return errno;
  if( ftruncate(fd, SPACE_PAGES_HEADER_BYTES)!=0 ) err = errno;
  if( close(fd)!=0 && err==0 ) err = errno;
  return err;
}

void spacePagesMap(const char *zStatsPath){
  char *zPath = spacePagesPath(zStatsPath);
  void *pNew = MAP_FAILED;
  struct stat st;
  int fd = zPath ? open(zPath, O_RDWR|O_CLOEXEC) : -1;
  sqlite3_free(zPath);
  if( fd>=0 && fstat(fd, &st)==0 && st.st_size>=SPACE_PAGES_HEADER_BYTES ){
    pNew = mmap(0, SPACE_PAGES_FILE_BYTES, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
  }
  if( gPages.pFile ){
    munmap(gPages.pFile, SPACE_PAGES_FILE_BYTES);
    close(gPages.fd);
  }
  gPages.pFile = 0;
  gPages.fd = -1;
  if( pNew!=MAP_FAILED ){
    gPages.pFile = (uint8_t*)pNew;
    gPages.fd = fd;
    gPages.szFile = st.st_size;
  }else if( fd>=0 ){
    close(fd);
  }
}

void spacePagesWarmAtOpen(int bOn){ gPages.bWarmAtOpen = bOn!=0; }

/* Set every bit of pages [iFirst, iEnd) whose bit is clear; how many were clear. */
static i64 spaceSetBits(SpacePages *p, i64 iFirst, i64 iEnd, i64 *pnSet){
  i64 nClear = 0, i;
  i64 nMax = SPACE_PAGES_SLOT_BYTES*8;
  for(i=iFirst; i<iEnd; i++){
    uint8_t mask = (uint8_t)(1u << (i & 7));
    uint8_t *pByte = i<nMax ? spaceBitByte(p, i) : 0;
    if( pByte==0 ){ nClear += iEnd - i; break; }
    if( *pByte & mask ){
      if( pnSet ) (*pnSet)++;
    }else{
      *pByte |= mask;
      nClear++;
    }
  }
  if( iEnd>*p->pnHigh ) *p->pnHigh = iEnd<nMax ? iEnd : nMax;
  return nClear;
}

SpacePages *spacePagesAttach(const char *zName, int64_t szFile){
  SpacePages *p = sqlite3_malloc(sizeof(*p));
  int bNew = 1;
  if( p==0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->iSlot = -1;
  if( zName && gPages.pFile ){
    SpacePagesSlot *aSlot = spaceSlots();
    uint64_t h = spaceHash(zName);
    int i, iFree = -1;
    for(i=0; i<SPACE_PAGES_SLOTS && p->iSlot<0; i++){
      if( aSlot[i].hash==h ){ p->iSlot = i; bNew = 0; }
      else if( aSlot[i].hash==0 && iFree<0 ) iFree = i;
    }
    if( p->iSlot<0 && iFree>=0 ){
      p->iSlot = iFree;
      aSlot[iFree].hash = h;
      aSlot[iFree].nHigh = 0;
    }
  }
  if( p->iSlot>=0 ){
    p->aBits = gPages.pFile + SPACE_PAGES_HEADER_BYTES + p->iSlot;
    p->nStride = SPACE_PAGES_SLOTS;
    p->pnHigh = &spaceSlots()[p->iSlot].nHigh;
  }else{
    void *aBits = mmap(0, SPACE_PAGES_SLOT_BYTES, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    if( aBits==MAP_FAILED ){
      sqlite3_free(p);
      return 0;
    }
    p->aBits = aBits;
    p->nStride = 1;
    p->pnHigh = &p->nOwnHigh;
  }
  if( bNew && zName && gPages.bWarmAtOpen && szFile>0 ){
    spaceSetBits(p, 0, (szFile + SPACE_PAGE_SIZE - 1)/SPACE_PAGE_SIZE, 0);
  }
  return p;
}

void spacePagesDetach(SpacePages *p, int bForget){
  if( p==0 ) return;
  if( p->iSlot<0 ){
    munmap(p->aBits, SPACE_PAGES_SLOT_BYTES);
  }else if( bForget ){
    spacePagesTruncate(p, 0);
    spaceSlots()[p->iSlot].hash = 0;
  }
  sqlite3_free(p);
}

int64_t spacePagesTouch(SpacePages *p, int64_t iOfst, int64_t iAmt, int64_t *pnCached){
  if( p==0 || iAmt<=0 ) return 0;
  return spaceSetBits(p, iOfst/SPACE_PAGE_SIZE, (iOfst + iAmt + SPACE_PAGE_SIZE - 1)/SPACE_PAGE_SIZE, pnCached);
}

void spacePagesTruncate(SpacePages *p, int64_t szFile){
  i64 iFirst, i;
  if( p==0 ) return;
  iFirst = (szFile + SPACE_PAGE_SIZE - 1)/SPACE_PAGE_SIZE;
  /* Every bit below nHigh was reachable when it was set. */
  for(i=iFirst; i<*p->pnHigh && (i & 7)!=0; i++) p->aBits[(i>>3)*p->nStride] &= (uint8_t)~(1u << (i & 7));
  for(; i<*p->pnHigh; i+=8) p->aBits[(i>>3)*p->nStride] = 0;
  if( *p->pnHigh>iFirst ) *p->pnHigh = iFirst;
}
