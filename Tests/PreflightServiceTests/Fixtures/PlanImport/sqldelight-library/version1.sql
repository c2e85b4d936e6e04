-- The library app's version 1, as its Schema.create made it: what databases/1.db holds.
CREATE TABLE book (
  id INTEGER NOT NULL PRIMARY KEY,
  title TEXT NOT NULL,
  author TEXT,
  tags TEXT,
  favorite INTEGER NOT NULL DEFAULT 0,
  memo BLOB NOT NULL DEFAULT '{}'
);
CREATE TABLE chapter (
  id INTEGER NOT NULL PRIMARY KEY,
  book_id INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  read INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chapter_book_index ON chapter(book_id);
