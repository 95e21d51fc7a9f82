/** The ssh that git runs for a user's URL: checked against the installed OpenSSH with `ssh -G`. */
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { safeGitEnv, sshCommand } from "./git-exec.ts";

const hasSsh = (() => {
  try {
    execFileSync("ssh", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** The configuration ssh would use for `host` when started the way git starts it (through sh). */
function effectiveConfig(command: string, host = "git.example.com"): Map<string, string[]> {
  const out = execFileSync("sh", ["-c", `${command} -G ${host}`], { encoding: "utf8" });
  const config = new Map<string, string[]>();
  for (const line of out.split("\n")) {
    const [key = "", ...rest] = line.split(" ");
    if (key) config.set(key, [...(config.get(key) ?? []), rest.join(" ")]);
  }
  return config;
}

describe("ssh for a user's git URL", () => {
  let savedSock: string | undefined;
  beforeEach(() => {
    savedSock = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = "/tmp/argus-test-agent.sock";
  });
  afterEach(() => {
    if (savedSock === undefined) delete process.env.SSH_AUTH_SOCK;
    else process.env.SSH_AUTH_SOCK = savedSock;
  });

  it.skipIf(!hasSsh)("offers no key file, no agent and reads no ssh config", () => {
    const config = effectiveConfig(sshCommand());
    expect(config.get("identityfile")).toEqual(["none"]);
    expect(config.get("identityagent")).toEqual(["none"]);
    expect(config.get("identitiesonly")).toEqual(["yes"]);
    expect(config.get("batchmode")).toEqual(["yes"]);
    expect(sshCommand()).toContain("-F /dev/null");
  });

  it.skipIf(!hasSsh)("with the operator's consent uses the server's keys as ssh normally would", () => {
    const command = sshCommand({ useServerKeys: true });
    expect(command).not.toContain("/dev/null");
    const config = effectiveConfig(command);
    expect(config.get("identityfile")?.some((f) => f.includes(".ssh/id_"))).toBe(true);
    expect(config.get("batchmode")).toEqual(["yes"]);
  });

  it.skipIf(!hasSsh)("passes the address pin through the shell intact", () => {
    const config = effectiveConfig(
      sshCommand({ options: ["HostName=2606:4700::1111", "HostKeyAlias=[git.example.com]:2222"] }),
    );
    expect(config.get("hostname")).toEqual(["2606:4700::1111"]);
    expect(config.get("hostkeyalias")).toEqual(["[git.example.com]:2222"]);
    expect(() => sshCommand({ options: ["HostName=x'; touch /tmp/pwned; '"] })).toThrow(/unsafe ssh option/);
  });

  it("keeps the agent socket out of git's environment unless the operator allows the server's keys", () => {
    expect(safeGitEnv()).not.toHaveProperty("SSH_AUTH_SOCK");
    expect(safeGitEnv({}, { useServerKeys: true }).SSH_AUTH_SOCK).toBe("/tmp/argus-test-agent.sock");
    expect(safeGitEnv().GIT_SSH_COMMAND).toBe(sshCommand());
  });
});
