/**
 * Output limits of the review tools, in characters of the text sent back to the model. Every tool
 * stays under its cap and says what it left out and how to get the rest (a narrower path, a line
 * range, a lower limit), so one call can never flood the context window.
 */

/** Hard ceiling on any tool result (runToolCall cuts anything longer, with a note). */
export const MAX_TOOL_RESULT_CHARS = 40_000;

/** read_file: text returned per call, lines per call, and characters kept of one line. */
export const MAX_READ_FILE_CHARS = 30_000;
export const MAX_READ_FILE_LINES = 1_000;
export const MAX_LINE_CHARS = 1_000;
/** read_file reads at most this much of a file; lines past it cannot be shown. */
export const MAX_READ_FILE_BYTES = 4 * 1024 * 1024;

/** list_dir: entries shown per call, and the deepest recursion. */
export const MAX_LIST_DIR_ENTRIES = 400;
export const MAX_LIST_DIR_DEPTH = 4;
export const MAX_LIST_DIR_CHARS = 20_000;

/** grep: matches shown (default and maximum), context lines, characters kept of a matched line. */
export const DEFAULT_GREP_RESULTS = 100;
export const MAX_GREP_RESULTS = 500;
export const MAX_GREP_CONTEXT = 10;
export const MAX_GREP_LINE_CHARS = 300;
export const MAX_GREP_CHARS = 30_000;
/** rg output read at most; past it rg is stopped and the count becomes "at least". */
export const MAX_GREP_SCAN_BYTES = 32 * 1024 * 1024;
export const GREP_TIMEOUT_MS = 20_000;

/** Symbol tools: rows shown (default and maximum). */
export const DEFAULT_SYMBOL_RESULTS = 100;
export const MAX_SYMBOL_RESULTS = 500;
export const MAX_SYMBOL_CHARS = 20_000;

/** get_file_summary: outline entries and findings shown. */
export const MAX_SUMMARY_OUTLINE = 150;
export const MAX_SUMMARY_FINDINGS = 50;
export const MAX_SUMMARY_CHARS = 15_000;

/** get_static_analysis: findings shown (default and maximum). */
export const DEFAULT_STATIC_RESULTS = 100;
export const MAX_STATIC_RESULTS = 500;
export const MAX_STATIC_CHARS = 25_000;

/** get_diff: patch text shown; get_git_log: commits shown (default and maximum). */
export const MAX_DIFF_CHARS = 30_000;
export const DEFAULT_LOG_COMMITS = 30;
export const MAX_LOG_COMMITS = 200;

/** search_code: hits (default and maximum) and lines of each snippet. */
export const DEFAULT_SEARCH_RESULTS = 10;
export const MAX_SEARCH_RESULTS = 30;
export const MAX_SNIPPET_LINES = 30;
export const MAX_SEARCH_CHARS = 25_000;
