/*
** Preflight's opcode counter for the device engines: how many times each opcode of SQLite's
** virtual machine ran on a connection, which Debian's build cannot tell (its
** SQLITE_STMTSTATUS_VM_STEP sums every opcode alike). scripts/build-engines appends this
** file to the amalgamation and puts one call of preflightCountOpcode() in sqlite3VdbeExec(),
** just before the dispatch on the opcode, so every opcode run is counted once, as
** SQLITE_STMTSTATUS_VM_STEP counts it.
**
** OVERVIEW: a caller hands a connection an array of 256 counters
** (preflight_count_opcodes); from then on each opcode that connection's statements run adds
** one to counts[opcode]. preflight_opcode_name() names an opcode, so that the caller can
** group them without knowing this build's numbering (it changes between SQLite versions).
**
** LIMITATIONS: at most PREFLIGHT_COUNTED connections at once, and no locking: a Preflight
** worker migrates on one thread. The counters belong to the caller, who must stop the
** counting (counts NULL) before it frees them or closes the connection.
*/
#define PREFLIGHT_COUNTED 4

static struct {
  sqlite3 *db;                /* A counted connection, or NULL for a free slot */
  sqlite3_uint64 *aCount;     /* Its 256 counters, one per opcode */
} preflightCounted[PREFLIGHT_COUNTED];

static void preflightCountOpcode(sqlite3 *db, unsigned char op){
  int i;
  for(i=0; i<PREFLIGHT_COUNTED; i++){
    if( preflightCounted[i].db==db ){
      preflightCounted[i].aCount[op]++;
      return;
    }
  }
}

/*
** Counts the opcodes db runs into aCount[256] from now on; aCount NULL stops counting db.
** SQLITE_FULL when PREFLIGHT_COUNTED connections are counted already.
*/
SQLITE_API int preflight_count_opcodes(sqlite3 *db, sqlite3_uint64 *aCount){
  int i;
  for(i=0; i<PREFLIGHT_COUNTED; i++){
    if( preflightCounted[i].db==db ){
      preflightCounted[i].db = aCount ? db : 0;
      preflightCounted[i].aCount = aCount;
      return SQLITE_OK;
    }
  }
  if( aCount==0 ) return SQLITE_OK;
  for(i=0; i<PREFLIGHT_COUNTED; i++){
    if( preflightCounted[i].db==0 ){
      preflightCounted[i].db = db;
      preflightCounted[i].aCount = aCount;
      return SQLITE_OK;
    }
  }
  return SQLITE_FULL;
}

/* The name of opcode op in this build ("Column", "MakeRecord"), or NULL past the last. */
SQLITE_API const char *preflight_opcode_name(int op){
  if( op<0 || op>=(int)sizeof(sqlite3OpcodeProperty) ) return 0;
  return sqlite3OpcodeName(op);
}
