-- catalogue.sql on ../shared/fixtures, the real files of other tools (a test:
-- tests/run_sql_examples.sh skips it when that folder is absent).  One row per
-- model: the sharded checkpoint is one model of six shards, counted once.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/catalogue.sql
.headers on
.mode column --wrap 0

CREATE TEMP TABLE catalogue AS
SELECT replace(model, '../shared/fixtures/', '') AS model, format, files, files_present, tensors, params,
       nbytes, revision,
       CASE WHEN format = 'gguf' AND error IS NULL THEN
         (SELECT value FROM gguf_metadata(m.model) WHERE key = 'general.architecture') END
         AS architecture,
       error
FROM weights_models('../shared/fixtures/**') AS m;

SELECT model, format, architecture, files, tensors, params, nbytes
FROM catalogue WHERE error IS NULL ORDER BY model;

-- What cannot be read, and why (a missing shard, a file that does not parse).
SELECT model, files_present || '/' || files AS present, error FROM catalogue WHERE error IS NOT NULL;

-- Files of the folder that belong to no readable model.
SELECT file, error FROM weights_files('../shared/fixtures/**') WHERE error IS NOT NULL;

-- Totals per format: each model counted once, however many files it has.
SELECT format, count(*) AS models, sum(files) AS files, sum(params) AS params, sum(nbytes) AS bytes
FROM catalogue WHERE error IS NULL GROUP BY format;
