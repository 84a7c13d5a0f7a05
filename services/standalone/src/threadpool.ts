/**
 * libuv's thread pool (4 threads by default) runs DuckDB's statements (node-api async work) and every asynchronous
 * file operation of the process, the ingest journal's writes and fdatasyncs among them. While a DuckDB checkpoint holds
 * commits, the inserts waiting for it occupy pool threads, and with four of them a journal write queued behind them
 * held ingest answers for over a second. Enough threads for every DuckDB connection (a write lane per table, the read
 * pool) and the file work beside them keep the journal from waiting on the store. Imported first by the entry point:
 * the pool reads the variable once, when it is first used. An operator's own setting is kept.
 */
process.env['UV_THREADPOOL_SIZE'] ??= '32';
