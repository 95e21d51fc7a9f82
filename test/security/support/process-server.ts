/**
 * A real Argus server in its own process (support/serve.ts), so the suite can kill -9 it mid-job and
 * read every line it logs. The URL is taken from its "listening" log line (port 0 = any free port).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./enumerate.ts";

export interface ServerProcess {
  url: string;
  pid: number;
  /** Every line written to stdout and stderr so far (pino JSON lines, plus anything else). */
  output: string[];
  /** SIGKILL: no shutdown hook runs, like a power cut or the OOM killer. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 90_000;

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(process.env.SERVER_NODE_ARGS?.split(" ") ?? []),
      "--import",
      "tsx",
      path.join(repoRoot, "test/security/support/serve.ts"),
    ],
    {
      cwd: repoRoot,
      // Only what a server needs from the parent (PATH for git and rg, HOME); the rest is the test's.
      env: {
        NODE_ENV: "test",
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        LOG_FORMAT: "json",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output.join("\n")}`)), START_TIMEOUT_MS);
    const onLine = (line: string) => {
      output.push(line);
      const m = /"url":"(http:\/\/[^"]+)"/.exec(line);
      if (m && line.includes("listening")) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffered = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        lines.forEach(onLine);
      });
    }
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited during start-up:\n${output.join("\n")}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    output,
    async kill9() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const forced = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(forced);
    },
  };
}
