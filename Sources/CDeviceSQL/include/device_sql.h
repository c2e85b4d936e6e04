#ifndef PREFLIGHT_DEVICE_SQL_H
#define PREFLIGHT_DEVICE_SQL_H
/*
** What a phone's SQLite has that the SQLite Preflight links lacks, defined on one
** connection. Written from the documented behaviour of each function (SQLite's
** lang_corefunc.html and lang_aggfunc.html, ICU's API reference, AOSP's sqlite3_android.cpp
** for which collators Android opens); docs/FIDELITY.md says where each was checked.
*/
#include <sqlite3.h>

/*
** Defines one of the functions SQLite added after the linked release, by its name as
** SQLite folds it: "unhex" (3.41), "octet_length" (3.43), "concat", "concat_ws" and
** "string_agg" (3.44). SQLITE_NOTFOUND for any other name.
*/
int preflight_define_newer_function(sqlite3 *db, const char *zName);

/*
** What Android adds to each connection, with `zLocale` the device's locale ("en_US"):
** ICU's lower(), upper(), LIKE and REGEXP (SQLITE_ENABLE_ICU in AOSP's dist/Android.bp), and
** the framework's collations LOCALIZED and PHONEBOOK (the locale's collator at primary
** strength) and UNICODE (its collator at ICU's default, tertiary strength).
*/
int preflight_define_android_sql(sqlite3 *db, const char *zLocale);

#endif
