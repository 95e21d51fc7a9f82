/**
 * Processes for the multi-process tests: Argus nodes (test/scale/support/node.ts, each its own Node
 * process on its own port) and a Redis server of the test's own (a private redis-server with an
 * append-only file, so the test can restart it without touching anyone else's Redis).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

export interface NodeProcess {
  role: string;
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stderr (shown when a test fails). */
  stderr: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Starts a node and waits for its `ready <url>` line. */
export async function startNode(role: "web" | "worker" | "all", env: Record<string, string>): Promise<NodeProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/scale/support/node.ts"], {
    env: { ...process.env, ...env, ARGUS_ROLE: role },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      const m = /^ready (\S+)$/.exec(line);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`the ${role} node exited (${code}) before it was ready:\n${err}`)));
  });
  return {
    role,
    url,
    child,
    stderr: () => err,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.once("error", reject);
  });
}

export function hasRedisServer(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

export interface PrivateRedis {
  url: string;
  /** Stops it (SIGTERM: it writes its data) and starts it again on the same port and data. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "argus-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""];
  args.push("--appendonly", "yes", "--appendfsync", "always", "--logfile", "");
  let proc: ChildProcess;
  const up = async () => {
    proc = spawn("redis-server", args, { stdio: "ignore" });
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, "127.0.0.1", () => {
          s.end();
          resolve(true);
        });
        s.once("error", () => resolve(false));
      });
      if (ok) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const down = async () => {
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    if (proc.exitCode === null) proc.kill("SIGTERM");
    await exited;
  };
  await up();
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart(downMs = 500) {
      await down();
      await new Promise((r) => setTimeout(r, downMs));
      await up();
    },
    async stop() {
      await down();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
