-- The notes app's version 1, as its Schema.create made it: what databases/1.db holds.
CREATE TABLE folder (
  id INTEGER NOT NULL PRIMARY KEY,
  name TEXT NOT NULL,
  sort INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE note (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  folder_id INTEGER NOT NULL DEFAULT 0 REFERENCES folder(id),
  title TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  pinned INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL DEFAULT (strftime('%s', 'now'))
);
CREATE INDEX note_folder ON note(folder_id, pinned DESC);
CREATE TRIGGER IF NOT EXISTS folder_keep_default BEFORE DELETE ON folder
BEGIN SELECT CASE WHEN old.id = 0 THEN RAISE(ABORT, 'the default folder stays') END;
END;
INSERT OR IGNORE INTO folder(id, name, sort) VALUES (0, '', -1);
