#ifndef PREFLIGHT_CICU_SHIM_H
#define PREFLIGHT_CICU_SHIM_H
/* Debian's libicu (libicu-dev): the ICU that Android's SQLite and framework call for case
   mapping, LIKE, REGEXP and collation (AOSP external/sqlite, frameworks/base). */
#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/uiter.h>
#include <unicode/uregex.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>
#endif
