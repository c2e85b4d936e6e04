/* Priorities; a comment; with semicolons */
CREATE INDEX idx_task_done ON task(done);
ALTER TABLE task ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
