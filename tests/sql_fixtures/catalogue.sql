-- catalogue.sql: catalogue a folder of model files into a table (file,
-- format, architecture, parameter count, size), then query it.  Files that do
-- not parse are kept with their error instead of stopping the scan:
-- weights_files() lists every file a path names, whether it parses or not.
-- Run: sqlite3 -cmd '.load ./build/weights' :memory: < tests/sql_fixtures/catalogue.sql
-- (a test: this is sql/catalogue.sql on ../shared/fixtures, the real files of other tools;
-- tests/run_sql_examples.sh skips it when that folder is absent)
.headers on
.mode column

CREATE TEMP TABLE catalogue AS
WITH files AS MATERIALIZED (
  SELECT file, format, size, tensors, error FROM weights_files('../shared/fixtures/**'))
SELECT replace(file, '../shared/fixtures/', '') AS file, format, size, tensors,
       CASE WHEN format = 'gguf' AND error IS NULL THEN
         (SELECT value FROM gguf_metadata(files.file) WHERE key = 'general.architecture') END
         AS architecture,
       CASE WHEN error IS NULL THEN (SELECT sum(numel) FROM tensors(files.file)) END AS params,
       error
FROM files;

SELECT file, format, architecture, params, size FROM catalogue WHERE error IS NULL ORDER BY file;

-- What did not parse, and why.
SELECT file, error FROM catalogue WHERE error IS NOT NULL;

-- Totals per format.
SELECT format, count(*) AS files, sum(params) AS params, sum(size) AS bytes
FROM catalogue WHERE error IS NULL GROUP BY format;
