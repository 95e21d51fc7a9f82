/**
 * A real pino logger whose JSON lines are kept in memory, for tests that check what reaches the log
 * (and, by contrast, what does not reach users).
 */
import { Writable } from "node:stream";
import pino from "pino";
import type { Logger } from "../../server/logger.ts";

export interface CapturedLog {
  log: Logger;
  /** Everything logged so far, one JSON object per line. */
  text(): string;
  /** The parsed lines. */
  lines(): Record<string, unknown>[];
}

export function captureLog(level: pino.LevelWithSilent = "debug"): CapturedLog {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  // pino writes each line to the stream as it logs, so a test can read it right after the call.
  const log = pino({ level }, sink);
  const text = () => chunks.join("");
  return {
    log,
    text,
    lines: () =>
      text()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
