DROP VIEW IF EXISTS open_tasks;
CREATE VIEW open_tasks AS SELECT * FROM task WHERE done = 0;
