-- A note per task, and a log of completed tasks.
ALTER TABLE task ADD COLUMN note TEXT DEFAULT 'a; b';

CREATE TABLE task_log (
  task_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  what TEXT NOT NULL
);

CREATE TRIGGER task_done AFTER UPDATE OF done ON task WHEN new.done = 1
BEGIN
  INSERT INTO task_log(task_id, at, what) VALUES (new.id, 0, 'done; logged');
END;
