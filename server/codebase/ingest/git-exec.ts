/**
 * Running git safely: argv only (no shell), a scrubbed environment, no prompt of any kind, a
 * timeout that kills git and every helper it started (ssh, git-remote-https), and bounded output.
 * Used by the git ingest and by git-meta.
 */
import { spawn } from "node:child_process";
import { childProcessEnv } from "../../config.ts";

/** `-c` settings every git call gets. They outrank every config file. */
export const SAFE_GIT_CONFIG: readonly string[] = [
  // No stored or prompted credentials: a token, when given, travels only as an extra header.
  "credential.helper=",
  "core.askPass=",
  // Only these transports, whatever a user or system config (insteadOf, protocol.*.allow) says.
  "protocol.allow=never",
  "protocol.https.allow=always",
  "protocol.ssh.allow=always",
  "protocol.git.allow=always",
  "protocol.file.allow=never",
  "protocol.ext.allow=never",
  "protocol.http.allow=never",
  // A redirect would take the fetch to a host nobody checked (git-network.ts checks the first one).
  "http.followRedirects=false",
  // Nothing from a repository or a global config gets to run a program.
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "submodule.recurse=false",
  "advice.detachedHead=false",
  "gc.auto=0",
].flatMap((kv) => ["-c", kv]);

// Inherited GIT_* variables (GIT_DIR, GIT_CONFIG_*, GIT_TRACE*, GIT_CURL_VERBOSE…) could redirect git
// or make it print headers; only the operator's CA settings and exec path pass through.
const KEEP_GIT_VARS = new Set(["GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_EXEC_PATH"]);

export interface SshSettings {
  /** Let ssh use the server's own keys, agent and ssh config (GIT_SSH_USE_SERVER_KEYS=true). */
  useServerKeys?: boolean;
  /** More `-o` options (validated by the caller: host names and addresses only), e.g. the address pin. */
  options?: readonly string[];
}

// A user's URL must not borrow the server's identity: no key files, no agent, no ~/.ssh/config or
// /etc/ssh/ssh_config (IdentityFile, ProxyCommand, Host aliases). known_hosts is still checked.
const ISOLATED_SSH = [
  "-F",
  "/dev/null",
  "-o",
  "IdentitiesOnly=yes",
  "-o",
  "IdentityFile=none",
  "-o",
  "IdentityAgent=none",
];

/** The GIT_SSH_COMMAND: never prompts, gives up on a dead host, isolated from the server's keys unless allowed. */
export function sshCommand(settings: SshSettings = {}): string {
  const args = [
    ...(settings.useServerKeys ? [] : ISOLATED_SSH),
    "-o",
    "BatchMode=yes",
    "-o",
    "ConnectTimeout=30",
    ...(settings.options ?? []).flatMap((o) => ["-o", o]),
  ];
  // git runs this through sh: anything beyond plain characters is single-quoted.
  const quoted = args.map((a) => {
    if (/^[\w./=-]+$/.test(a)) return a;
    if (/['\x00-\x1f]/.test(a)) throw new Error(`unsafe ssh option: ${JSON.stringify(a)}`);
    return `'${a}'`;
  });
  return ["ssh", ...quoted].join(" ");
}

/** process.env without GIT_* (mostly), plus settings that make every prompt fail fast. */
export function safeGitEnv(extra: Record<string, string> = {}, ssh: SshSettings = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(childProcessEnv())) {
    if (v === undefined || (k.startsWith("GIT_") && !KEEP_GIT_VARS.has(k))) continue;
    // The agent holds the server's keys; a clone for a user must not reach it.
    if (k === "SSH_AUTH_SOCK" && !ssh.useServerKeys) continue;
    env[k] = v;
  }
  return {
    ...env,
    // English messages, so failures can be told apart.
    LC_ALL: "C",
    LANGUAGE: "C",
    GIT_TERMINAL_PROMPT: "0",
    // Set but empty: git skips askpass (and core.askPass, SSH_ASKPASS) and, with prompts off, fails.
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    SSH_ASKPASS_REQUIRE: "never",
    GCM_INTERACTIVE: "never",
    GIT_SSH_COMMAND: sshCommand(ssh),
    GIT_ALLOW_PROTOCOL: "https:ssh:git",
    // LFS objects would be a second, uncapped download; the pointer files are enough to review.
    GIT_LFS_SKIP_SMUDGE: "1",
    ...extra,
  };
}

export interface GitRunOptions {
  cwd?: string;
  /** Full environment (default safeGitEnv()). */
  env?: Record<string, string>;
  timeoutMs: number;
  /** Stdout beyond this is dropped and git is stopped (default 16 MB). */
  maxStdoutBytes?: number;
  signal?: AbortSignal;
  /** Each stderr line (progress lines end in \r). Throwing stops git; runGit then rejects with it. */
  onStderrLine?: (line: string) => void;
}

export interface GitRunResult {
  code: number | null;
  stdout: Buffer;
  /** The last 64 KB of stderr. */
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  stdoutTruncated: boolean;
}

const STDERR_KEEP = 64 * 1024;

export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitRunResult> {
  const maxStdout = options.maxStdoutBytes ?? 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    // detached: git gets its own process group (so a kill reaches ssh and remote helpers too) and no
    // controlling terminal (so ssh can't open /dev/tty to ask for a passphrase).
    const child = spawn("git", [...SAFE_GIT_CONFIG, ...args], {
      cwd: options.cwd,
      env: (options.env ?? safeGitEnv()) as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    let pending = "";
    const result = { timedOut: false, aborted: false, stdoutTruncated: false };
    let stopError: unknown;

    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      result.aborted = true;
      kill();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    child.stdout.on("data", (chunk: Buffer) => {
      if (result.stdoutTruncated) return;
      const room = maxStdout - outBytes;
      if (chunk.length > room) {
        out.push(chunk.subarray(0, room));
        outBytes = maxStdout;
        result.stdoutTruncated = true;
        kill();
        return;
      }
      out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      err = (err + text).slice(-STDERR_KEEP);
      if (!options.onStderrLine || stopError !== undefined) return;
      const lines = (pending + text).split(/[\r\n]/);
      pending = lines.pop() ?? "";
      try {
        for (const line of lines) if (line !== "") options.onStderrLine(line);
      } catch (e) {
        stopError = e;
        kill();
      }
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(new Error(`git could not be started (${e.message}); install git on the server.`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (stopError !== undefined) return reject(stopError);
      resolve({ code, stdout: Buffer.concat(out), stderr: err, ...result });
    });
  });
}
