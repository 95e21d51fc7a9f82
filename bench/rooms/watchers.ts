/** The parent's side of the watcher processes (bench/rooms/watcher.ts): fork, command, await replies. */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Collected, WatcherCommand, WatcherReply } from "./watcher.ts";

const script = fileURLToPath(new URL("./watcher.ts", import.meta.url));

export class Watchers {
  private constructor(private readonly procs: ChildProcess[]) {}

  static async fork(count: number): Promise<Watchers> {
    const procs = Array.from({ length: count }, () =>
      fork(script, [], { execArgv: ["--import", "tsx"], serialization: "advanced", stdio: "inherit" }),
    );
    await Promise.all(procs.map((p) => new Promise((resolve) => p.once("spawn", resolve))));
    return new Watchers(procs);
  }

  get size(): number {
    return this.procs.length;
  }

  /** Sends a command to every process (or one per entry of `perProcess`) and awaits each one's matching reply. */
  async all<R extends WatcherReply>(
    command: WatcherCommand | ((i: number) => WatcherCommand),
    match: (r: WatcherReply) => r is R,
    timeoutMs = 120_000,
  ): Promise<R[]> {
    return Promise.all(
      this.procs.map((p, i) => {
        const reply = this.next(p, match, timeoutMs);
        p.send(typeof command === "function" ? command(i) : command);
        return reply;
      }),
    );
  }

  /** Resolves when every process reported `done` for the run (false when the deadline passed first). */
  async done(run: number, timeoutMs: number): Promise<boolean> {
    try {
      await Promise.all(
        this.procs.map((p) => this.next(p, (r): r is { done: number } => "done" in r && r.done === run, timeoutMs)),
      );
      return true;
    } catch {
      return false;
    }
  }

  kill(): void {
    for (const p of this.procs) p.kill();
  }

  private next<R extends WatcherReply>(p: ChildProcess, match: (r: WatcherReply) => r is R, timeoutMs: number) {
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        p.off("message", onMessage);
        reject(new Error(`watcher ${p.pid} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (r: WatcherReply) => {
        if ("error" in r) {
          clearTimeout(timer);
          p.off("message", onMessage);
          reject(new Error(`watcher ${p.pid}: ${r.error}`));
        } else if (match(r)) {
          clearTimeout(timer);
          p.off("message", onMessage);
          resolve(r);
        }
      };
      p.on("message", onMessage);
    });
  }
}

export const isOk =
  (ok: "opened" | "started" | "closed") =>
  (r: WatcherReply): r is { ok: typeof ok } =>
    "ok" in r && r.ok === ok;
export const isCollected = (r: WatcherReply): r is { collected: Collected } => "collected" in r;
