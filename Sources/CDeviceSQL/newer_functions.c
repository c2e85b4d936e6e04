/*
** newer_functions.c -- SQL functions SQLite added after the release Preflight links.
**
** OVERVIEW: a device whose SQLite is newer than Debian's 3.40.1 runs migrations that call
** unhex(), octet_length(), concat(), concat_ws() or string_agg(); here they would fail with
** "no such function", a failure the phone never has. Each is defined from SQLite's own
** description of it (lang_corefunc.html, lang_aggfunc.html) and checked, call for call,
** against SQLite 3.44.2 (DeviceFunctionTests).
**
** LIMITATIONS: a wrong number of arguments to concat() or concat_ws() is an error when the
** call runs, not when it is prepared. string_agg() is an aggregate only: a step that uses
** it as a window function is not rehearsed (SQLiteFeature.stringAggWindow).
*/
#include <stdlib.h>
#include <string.h>
#include "device_sql.h"

/* The value of a hex digit, or -1. */
static int hexValue(unsigned char c){
  if( c>='0' && c<='9' ) return c - '0';
  if( c>='a' && c<='f' ) return c - 'a' + 10;
  if( c>='A' && c<='F' ) return c - 'A' + 10;
  return -1;
}

/* The code point of the UTF-8 character at z (of n bytes); its length in *pLen. */
static unsigned int utf8Read(const unsigned char *z, int n, int *pLen){
  unsigned int c = z[0];
  int len = 1;
  if( c>=0xc0 ){
    int extra = c>=0xf0 ? 3 : c>=0xe0 ? 2 : 1;
    c &= (0x3f >> extra);
    while( extra-- > 0 && len<n && (z[len] & 0xc0)==0x80 ){
      c = (c<<6) | (z[len] & 0x3f);
      len++;
    }
  }
  *pLen = len;
  return c;
}

/* Whether the UTF-8 text z (n bytes) holds the code point c. */
static int utf8Contains(const unsigned char *z, int n, unsigned int c){
  int i = 0;
  while( i<n ){
    int len;
    if( utf8Read(&z[i], n-i, &len)==c ) return 1;
    i += len;
  }
  return 0;
}

/*
** unhex(X) and unhex(X, Y): the blob whose bytes the hex digits of X spell, two digits a
** byte. Characters of Y may stand between the bytes (not inside one); anything else, or an
** odd digit, makes the result NULL, as does a NULL argument.
*/
static void unhexFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const unsigned char *zHex = sqlite3_value_text(argv[0]);
  int nHex = sqlite3_value_bytes(argv[0]);
  const unsigned char *zIgnore = (const unsigned char*)"";
  int nIgnore = 0;
  unsigned char *aOut;
  int nOut = 0;
  int i = 0;
  if( argc==2 ){
    zIgnore = sqlite3_value_text(argv[1]);
    nIgnore = sqlite3_value_bytes(argv[1]);
  }
  if( zHex==0 || zIgnore==0 ) return;
  aOut = sqlite3_malloc64(nHex/2 + 1);
  if( aOut==0 ){ sqlite3_result_error_nomem(ctx); return; }
  while( i<nHex ){
    int hi = hexValue(zHex[i]);
    if( hi<0 ){
      int len;
      if( !utf8Contains(zIgnore, nIgnore, utf8Read(&zHex[i], nHex-i, &len)) ) goto not_hex;
      i += len;
      continue;
    }
    if( i+1>=nHex || hexValue(zHex[i+1])<0 ) goto not_hex;
    aOut[nOut++] = (unsigned char)((hi<<4) | hexValue(zHex[i+1]));
    i += 2;
  }
  sqlite3_result_blob(ctx, aOut, nOut, sqlite3_free);
  return;
not_hex:
  sqlite3_free(aOut);
}

/*
** octet_length(X): the bytes X takes as text in the database's encoding (a blob's own
** length); NULL for NULL.
*/
static void octetLengthFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int utf16 = sqlite3_user_data(ctx)!=0;
  (void)argc;
  switch( sqlite3_value_type(argv[0]) ){
    case SQLITE_NULL: return;
    case SQLITE_BLOB: sqlite3_result_int(ctx, sqlite3_value_bytes(argv[0])); return;
    default:
      sqlite3_result_int(ctx, utf16 ? sqlite3_value_bytes16(argv[0]) : sqlite3_value_bytes(argv[0]));
  }
}

/*
** The text of argv[0..argc) without their NULLs, with the separator zSep between two
** pieces (NULL: none). Empty pieces add nothing, separator included.
*/
static void concatenate(
  sqlite3_context *ctx, int argc, sqlite3_value **argv, const char *zSep, int nSep
){
  sqlite3_int64 nTotal = 1;
  char *zOut;
  sqlite3_int64 nOut = 0;
  int i;
  for(i=0; i<argc; i++) nTotal += sqlite3_value_bytes(argv[i]) + nSep;
  zOut = sqlite3_malloc64(nTotal);
  if( zOut==0 ){ sqlite3_result_error_nomem(ctx); return; }
  for(i=0; i<argc; i++){
    int n = sqlite3_value_bytes(argv[i]);
    const char *z = (const char*)sqlite3_value_text(argv[i]);
    if( n<=0 || z==0 ) continue;
    if( nOut>0 && nSep>0 ){
      memcpy(&zOut[nOut], zSep, nSep);
      nOut += nSep;
    }
    memcpy(&zOut[nOut], z, n);
    nOut += n;
  }
  zOut[nOut] = 0;
  sqlite3_result_text64(ctx, zOut, nOut, sqlite3_free, SQLITE_UTF8);
}

/* concat(X, ...): the text of every argument that is not NULL, joined; "" if none is. */
static void concatFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  if( argc<1 ){
    sqlite3_result_error(ctx, "wrong number of arguments to function concat()", -1);
    return;
  }
  concatenate(ctx, argc, argv, 0, 0);
}

/* concat_ws(SEP, X, ...): as concat(), with SEP between the pieces; NULL if SEP is. */
static void concatWsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *zSep;
  if( argc<2 ){
    sqlite3_result_error(ctx, "wrong number of arguments to function concat_ws()", -1);
    return;
  }
  zSep = (const char*)sqlite3_value_text(argv[0]);
  if( zSep==0 ) return;
  concatenate(ctx, argc-1, &argv[1], zSep, sqlite3_value_bytes(argv[0]));
}

/* string_agg()'s running text; `started` once a value that is not NULL came. */
typedef struct Accumulator {
  sqlite3_str *pText;
  int started;
} Accumulator;

/*
** string_agg(X, Y): the text of every X that is not NULL, in row order, each after the
** first preceded by that row's Y (nothing for a NULL Y). NULL when no X came; the same as
** group_concat(X, Y), of which SQLite made it a second name.
*/
static void stringAggStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Accumulator *p;
  (void)argc;
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ) return;
  p = sqlite3_aggregate_context(ctx, sizeof(*p));
  if( p==0 ) return;
  if( p->pText==0 ) p->pText = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  if( p->started ){
    const char *zSep = (const char*)sqlite3_value_text(argv[1]);
    if( zSep ) sqlite3_str_append(p->pText, zSep, sqlite3_value_bytes(argv[1]));
  }
  sqlite3_str_append(p->pText, (const char*)sqlite3_value_text(argv[0]), sqlite3_value_bytes(argv[0]));
  p->started = 1;
}

static void stringAggFinal(sqlite3_context *ctx){
  Accumulator *p = sqlite3_aggregate_context(ctx, 0);
  int n;
  int rc;
  if( p==0 || p->pText==0 ) return;
  n = sqlite3_str_length(p->pText);
  rc = sqlite3_str_errcode(p->pText);
  {
    char *z = sqlite3_str_finish(p->pText);
    p->pText = 0;
    if( rc==SQLITE_NOMEM ){ sqlite3_result_error_nomem(ctx); sqlite3_free(z); return; }
    if( rc==SQLITE_TOOBIG ){ sqlite3_result_error_toobig(ctx); sqlite3_free(z); return; }
    if( z==0 ){ sqlite3_result_text(ctx, "", 0, SQLITE_STATIC); return; }
    sqlite3_result_text(ctx, z, n, sqlite3_free);
  }
}

int preflight_define_newer_function(sqlite3 *db, const char *zName){
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc;
  if( strcmp(zName, "unhex")==0 ){
    rc = sqlite3_create_function(db, "unhex", 1, flags, 0, unhexFunc, 0, 0);
    if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "unhex", 2, flags, 0, unhexFunc, 0, 0);
    return rc;
  }
  if( strcmp(zName, "octet_length")==0 ){
    sqlite3_stmt *pEncoding = 0;
    int utf16 = 0;
    rc = sqlite3_prepare_v2(db, "PRAGMA encoding", -1, &pEncoding, 0);
    if( rc==SQLITE_OK && sqlite3_step(pEncoding)==SQLITE_ROW ){
      utf16 = strncmp((const char*)sqlite3_column_text(pEncoding, 0), "UTF-16", 6)==0;
    }
    sqlite3_finalize(pEncoding);
    if( rc!=SQLITE_OK ) return rc;
    return sqlite3_create_function(db, "octet_length", 1, flags, utf16 ? (void*)db : 0, octetLengthFunc, 0, 0);
  }
  if( strcmp(zName, "concat")==0 ){
    return sqlite3_create_function(db, "concat", -1, flags, 0, concatFunc, 0, 0);
  }
  if( strcmp(zName, "concat_ws")==0 ){
    return sqlite3_create_function(db, "concat_ws", -1, flags, 0, concatWsFunc, 0, 0);
  }
  if( strcmp(zName, "string_agg")==0 ){
    return sqlite3_create_function(db, "string_agg", 2, flags, 0, 0, stringAggStep, stringAggFinal);
  }
  return SQLITE_NOTFOUND;
}
