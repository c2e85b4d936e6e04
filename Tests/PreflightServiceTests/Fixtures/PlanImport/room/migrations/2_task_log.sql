-- Migration(1, 2): a note per task, and a log of completed tasks.
ALTER TABLE `task` ADD COLUMN `note` TEXT DEFAULT 'a; b';
CREATE TABLE IF NOT EXISTS `task_log` (`task_id` INTEGER NOT NULL, `at` INTEGER NOT NULL, `what` TEXT NOT NULL, PRIMARY KEY(`task_id`, `at`));
