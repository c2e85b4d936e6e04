-- Migration(2, 3): priorities, and the open tasks as a view.
ALTER TABLE `task` ADD COLUMN `priority` INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS `index_task_done` ON `task` (`done`);
CREATE VIEW `open_tasks` AS SELECT id, title FROM task WHERE done = 0;
