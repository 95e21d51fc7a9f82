/** pino: one JSON object per line in production, readable lines in development. */
import pino, { type Logger } from "pino";
import type { Config } from "./config.ts";

export type { Logger };

export function createLogger(log: Config["log"]): Logger {
  return pino({
    level: log.level,
    base: { app: "argus" },
    // Secrets must never reach a log line, whatever object a caller passes.
    redact: {
      paths: ["password", "*.password", "token", "*.token", "headers.cookie", "*.headers.cookie"],
      censor: "[redacted]",
    },
    transport:
      log.format === "pretty"
        ? { target: "pino-pretty", options: { translateTime: "HH:MM:ss", ignore: "pid,hostname,app" } }
        : undefined,
  });
}
