/*
** android_sql.c -- the functions and collations an Android connection has.
**
** OVERVIEW: Android builds its SQLite with SQLITE_ENABLE_ICU (AOSP external/sqlite,
** dist/Android.bp), so lower(), upper(), LIKE and REGEXP are ICU's: 'ÄRGER' lowers to
** 'ärger', where stock SQLite folds ASCII only. Its framework opens each connection with
** register_android_functions() and register_localized_collators() (android/sqlite3_android.cpp,
** called from frameworks/base core/jni/android_database_SQLiteConnection.cpp): the collation
** UNICODE is an ICU collator for the default locale, and LOCALIZED (and PHONEBOOK, the same)
** one for the device's locale at primary strength, so case and accents do not order.
**
** Each is written here from ICU's API and SQLite's description of its ICU extension
** (ext/icu/README.txt): case mapping with u_strToLower/u_strToUpper for the locale given as
** second argument or else the device's; LIKE comparing code points after u_foldCase, with
** '%', '_' and an optional one-character escape; REGEXP as uregex_matches, a match of the
** whole text.
**
** OMITTED: the framework's PHONE_NUMBERS_EQUAL, _PHONE_NUMBER_STRIPPED_REVERSED and
** _DELETE_FILE functions, and ICU's icu_load_collation().
*/
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/uiter.h>
#include <unicode/uregex.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>
#include "device_sql.h"

static void icuError(sqlite3_context *ctx, const char *zCall, UErrorCode status){
  char *zMessage = sqlite3_mprintf("ICU error: %s(): %s", zCall, u_errorName(status));
  sqlite3_result_error(ctx, zMessage ? zMessage : "ICU error", -1);
  sqlite3_free(zMessage);
}

/*
** lower(X), upper(X), lower(X, LOCALE), upper(X, LOCALE): X case-mapped by ICU, in UTF-16
** as ICU works. The user data is the device's locale.
*/
static void mapCase(sqlite3_context *ctx, int argc, sqlite3_value **argv, int toUpper){
  const char *zLocale = (const char*)sqlite3_user_data(ctx);
  const UChar *zIn;
  int nIn;
  int capacity;
  int attempt;
  if( argc==2 ) zLocale = (const char*)sqlite3_value_text(argv[1]);
  zIn = sqlite3_value_text16(argv[0]);
  if( zIn==0 ) return;
  nIn = sqlite3_value_bytes16(argv[0]) / 2;
  capacity = nIn>0 ? nIn : 1;
  for(attempt=0; attempt<2; attempt++){
    UErrorCode status = U_ZERO_ERROR;
    UChar *zOut = sqlite3_malloc64(sizeof(UChar) * (sqlite3_int64)capacity);
    int nOut;
    if( zOut==0 ){ sqlite3_result_error_nomem(ctx); return; }
    nOut = toUpper ? u_strToUpper(zOut, capacity, zIn, nIn, zLocale, &status)
                   : u_strToLower(zOut, capacity, zIn, nIn, zLocale, &status);
    if( U_SUCCESS(status) ){
      sqlite3_result_text16(ctx, zOut, nOut * 2, sqlite3_free);
      return;
    }
    sqlite3_free(zOut);
    if( status!=U_BUFFER_OVERFLOW_ERROR ){
      icuError(ctx, toUpper ? "u_strToUpper" : "u_strToLower", status);
      return;
    }
    capacity = nOut;
  }
}

static void lowerFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){ mapCase(ctx, argc, argv, 0); }
static void upperFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){ mapCase(ctx, argc, argv, 1); }

/* The next code point of the NUL-terminated UTF-8 text at *pz, which moves past it. */
static UChar32 nextCodePoint(const unsigned char **pz){
  int32_t i = 0;
  UChar32 c;
  U8_NEXT_UNSAFE(*pz, i, c);
  *pz += i;
  return c;
}

/*
** Whether zText matches zPattern: '%' any run of characters, '_' one character, the
** escape (0: none) making the character after it literal, and any other character equal
** to the text's after Unicode case folding.
*/
static int likeMatch(const unsigned char *zPattern, const unsigned char *zText, UChar32 escape){
  while( *zPattern ){
    UChar32 p = nextCodePoint(&zPattern);
    if( p=='%' ){
      /* A run of '%' and '_' takes as many characters as it has '_', then any number. */
      while( *zPattern=='%' || *zPattern=='_' ){
        if( *zPattern++=='_' ){
          if( *zText==0 ) return 0;
          nextCodePoint(&zText);
        }
      }
      if( *zPattern==0 ) return 1;
      for(;;){
        if( likeMatch(zPattern, zText, escape) ) return 1;
        if( *zText==0 ) return 0;
        nextCodePoint(&zText);
      }
    }
    if( p=='_' ){
      if( *zText==0 ) return 0;
      nextCodePoint(&zText);
      continue;
    }
    if( escape!=0 && p==escape ){
      if( *zPattern==0 ) return *zText==0;
      p = nextCodePoint(&zPattern);
    }
    if( *zText==0 ) return 0;
    if( u_foldCase(nextCodePoint(&zText), U_FOLD_CASE_DEFAULT)!=u_foldCase(p, U_FOLD_CASE_DEFAULT) ) return 0;
  }
  return *zText==0;
}

/* like(PATTERN, X) and like(PATTERN, X, ESCAPE): what `X LIKE PATTERN [ESCAPE e]` calls. */
static void likeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const unsigned char *zPattern = sqlite3_value_text(argv[0]);
  const unsigned char *zText = sqlite3_value_text(argv[1]);
  UChar32 escape = 0;
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  if( sqlite3_value_bytes(argv[0]) > sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, -1) ){
    sqlite3_result_error(ctx, "LIKE or GLOB pattern too complex", -1);
    return;
  }
  if( argc==3 ){
    const unsigned char *zEscape = sqlite3_value_text(argv[2]);
    int32_t nEscape = sqlite3_value_bytes(argv[2]);
    int32_t i = 0;
    if( zEscape==0 ) return;
    U8_NEXT(zEscape, i, nEscape, escape);
    if( i!=nEscape ){
      sqlite3_result_error(ctx, "ESCAPE expression must be a single character", -1);
      return;
    }
  }
  if( zPattern && zText ) sqlite3_result_int(ctx, likeMatch(zPattern, zText, escape));
}

static void closeRegex(void *p){ uregex_close((URegularExpression*)p); }

/* regexp(PATTERN, X): what `X REGEXP PATTERN` calls; 1 when the pattern matches all of X. */
static void regexpFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  UErrorCode status = U_ZERO_ERROR;
  const UChar *zText = sqlite3_value_text16(argv[1]);
  URegularExpression *pRegex;
  UBool matched;
  (void)argc;
  if( zText==0 ) return;
  pRegex = sqlite3_get_auxdata(ctx, 0);
  if( pRegex==0 ){
    const UChar *zPattern = sqlite3_value_text16(argv[0]);
    if( zPattern==0 ) return;
    pRegex = uregex_open(zPattern, -1, 0, 0, &status);
    if( U_FAILURE(status) ){ icuError(ctx, "uregex_open", status); return; }
    sqlite3_set_auxdata(ctx, 0, pRegex, closeRegex);
    pRegex = sqlite3_get_auxdata(ctx, 0);
    if( pRegex==0 ){ sqlite3_result_error_nomem(ctx); return; }
  }
  uregex_setText(pRegex, zText, -1, &status);
  matched = uregex_matches(pRegex, 0, &status);
  {
    /* The text belongs to SQLite, which may free it after this call: let go of it. */
    static const UChar empty[1] = {0};
    UErrorCode released = U_ZERO_ERROR;
    uregex_setText(pRegex, empty, 0, &released);
  }
  if( U_FAILURE(status) ){ icuError(ctx, "uregex_matches", status); return; }
  sqlite3_result_int(ctx, matched ? 1 : 0);
}

/* A collation over UTF-8 texts by the ICU collator pCollator. */
static int collate(void *pCollator, int n1, const void *z1, int n2, const void *z2){
  UCharIterator i1, i2;
  UErrorCode status = U_ZERO_ERROR;
  UCollationResult order;
  uiter_setUTF8(&i1, (const char*)z1, n1);
  uiter_setUTF8(&i2, (const char*)z2, n2);
  order = ucol_strcollIter((UCollator*)pCollator, &i1, &i2, &status);
  return order==UCOL_LESS ? -1 : order==UCOL_GREATER ? 1 : 0;
}

static void closeCollator(void *p){ ucol_close((UCollator*)p); }

/* Registers collation zName: `zLocale`'s ICU collator, at primary strength if `primary`. */
static int defineCollation(sqlite3 *db, const char *zName, const char *zLocale, int primary){
  UErrorCode status = U_ZERO_ERROR;
  UCollator *pCollator = ucol_open(zLocale, &status);
  if( U_FAILURE(status) ) return SQLITE_ERROR;
  if( primary ) ucol_setStrength(pCollator, UCOL_PRIMARY);
  return sqlite3_create_collation_v2(db, zName, SQLITE_UTF8, pCollator, collate, closeCollator);
}

/* Registers a function whose user data is its own copy of the locale. */
static int defineLocaleFunction(
  sqlite3 *db, const char *zName, int nArg, int encoding, const char *zLocale,
  void (*xFunc)(sqlite3_context*, int, sqlite3_value**)
){
  char *zCopy = sqlite3_mprintf("%s", zLocale);
  if( zCopy==0 ) return SQLITE_NOMEM;
  return sqlite3_create_function_v2(
      db, zName, nArg, encoding | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, zCopy, xFunc, 0, 0, sqlite3_free);
}

int preflight_define_android_sql(sqlite3 *db, const char *zLocale){
  const int flags = SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = SQLITE_OK;
  if( rc==SQLITE_OK ) rc = defineLocaleFunction(db, "lower", 1, SQLITE_UTF16, zLocale, lowerFunc);
  if( rc==SQLITE_OK ) rc = defineLocaleFunction(db, "lower", 2, SQLITE_UTF16, zLocale, lowerFunc);
  if( rc==SQLITE_OK ) rc = defineLocaleFunction(db, "upper", 1, SQLITE_UTF16, zLocale, upperFunc);
  if( rc==SQLITE_OK ) rc = defineLocaleFunction(db, "upper", 2, SQLITE_UTF16, zLocale, upperFunc);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "like", 2, SQLITE_UTF8 | flags, 0, likeFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "like", 3, SQLITE_UTF8 | flags, 0, likeFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | flags, 0, regexpFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = defineCollation(db, "UNICODE", zLocale, 0);
  if( rc==SQLITE_OK ) rc = defineCollation(db, "LOCALIZED", zLocale, 1);
  if( rc==SQLITE_OK ) rc = defineCollation(db, "PHONEBOOK", zLocale, 1);
  return rc;
}
