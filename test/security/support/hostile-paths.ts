/**
 * Hostile paths, generated: every target a path could be aimed at (files outside the snapshot, the
 * host's own files, ignored files inside, symlinks planted after the import) times every way of
 * spelling it that a careless normaliser might turn back into a real path (URL encoding, double
 * encoding, overlong UTF-8, Unicode look-alikes of "." and "/", backslashes, NUL, padding, schemes).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Canaries } from "./canaries.ts";

export interface PlantedSnapshot {
  root: string;
  /** Outside the snapshot but inside DATA_DIR, and outside DATA_DIR altogether. */
  outsideFiles: string[];
  outsideDirs: string[];
  /** Names (relative to the root) of what was planted inside. */
  ignored: string[];
  symlinks: string[];
  /** An indexed file of the import that now is a symlink to a file outside. */
  swapped: string;
  cleanup(): void;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "Mallory",
  GIT_AUTHOR_EMAIL: "mallory@example.test",
  GIT_COMMITTER_NAME: "Mallory",
  GIT_COMMITTER_EMAIL: "mallory@example.test",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/**
 * Plants, after the import, what an attacker would like the tools to read: canary files outside,
 * canary files the ignore rules hide inside, symlinks pointing out (and at the ignored files), an
 * indexed file swapped for a link, and a git history that committed the .env.
 */
export function plantHostileFiles(opts: {
  root: string;
  dataDir: string;
  canaries: Canaries;
  swap: string;
}): PlantedSnapshot {
  const { root, dataDir, canaries: c } = opts;
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  const secret = (where: string) => `${where}: ${c.outside}\n`;

  const inDataDir = path.join(dataDir, "outside");
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), "argus-outside-"));
  const outsideFiles = [
    path.join(inDataDir, "target.txt"),
    path.join(tmpDir, "target.txt"),
    path.join(dataDir, "target.txt"),
  ];
  for (const f of outsideFiles) put(f, secret(f));
  // Named by no path: only a listing of an outside folder could show this name.
  for (const dir of [inDataDir, tmpDir]) put(path.join(dir, c.outsideName), secret(dir));

  const ignored = [
    ".env",
    ".env.local",
    "config/.env.production",
    "node_modules/pkg/index.js",
    "dist/bundle.js",
    "vendor/lib.php",
    "secret.local", // the project's own .gitignore
    "src/secret.local",
  ];
  for (const rel of ignored) put(path.join(root, rel), `// ${rel}\nconst k = "${c.ignored}";\n`);

  // A git history for get_diff / get_git_log that committed the .env (force-added) in two commits.
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env: gitEnv, stdio: "pipe" });
  git("init", "-q", "--initial-branch=main");
  git("add", "-A");
  git("add", "-f", ".env", "node_modules/pkg/index.js", "secret.local");
  git("commit", "-q", "-m", "first");
  put(path.join(root, ".env"), `TOKEN=${c.ignored}-v2\n`);
  put(path.join(root, "src/app.ts"), `${readFileSync(path.join(root, "src/app.ts"), "utf8")}// touched\n`);
  git("add", "-A");
  git("add", "-f", ".env");
  git("commit", "-q", "-m", "second");
  put(path.join(root, ".git/description"), `${c.ignored}\n`);

  const links: [string, string][] = [
    ["link-out", outsideFiles[0]!],
    ["link-tmp", outsideFiles[1]!],
    ["link-rel", path.relative(root, outsideFiles[0]!)],
    ["dir-link", inDataDir],
    ["dir-link-rel", path.relative(root, inDataDir)],
    ["passwd-link", "/etc/passwd"],
    ["root-link", "/"],
    ["data-link", dataDir],
    ["env-link", ".env"],
    ["modules-link", "node_modules"],
    ["src/up", "../.."],
    ["src/deep/climb", "../../../../../../../../.."],
    ["loop", "loop"],
    ["dangling", "does-not-exist"],
  ];
  for (const [rel, target] of links) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    symlinkSync(target, path.join(root, rel));
  }
  // An indexed file swapped for a link after the import (the index and search still list it).
  unlinkSync(path.join(root, opts.swap));
  symlinkSync(outsideFiles[0]!, path.join(root, opts.swap));

  return {
    root,
    outsideFiles,
    outsideDirs: [inDataDir, tmpDir],
    ignored: [...ignored, ".git/config", ".git/description", ".git/HEAD"],
    symlinks: [...links.map(([rel]) => rel), opts.swap],
    swapped: opts.swap,
    cleanup: () => rmSync(tmpDir, { recursive: true, force: true }),
  };
}

/**
 * What the paths point at before they are disguised: `core` targets get every disguise, the others
 * the common ones (the expensive tools spawn rg or git per call, so the product is kept near 400).
 */
function targets(p: PlantedSnapshot, dataDir: string): { core: string[]; more: string[] } {
  const rel = (abs: string) => path.relative(p.root, abs).split(path.sep).join("/");
  const climb = rel(p.outsideFiles[0]!);
  const core = [climb, p.outsideFiles[1]!, "../../../../../../etc/passwd", ".env", "link-out", "dir-link/target.txt"];
  const more = new Set<string>();
  for (let d = 1; d <= 12; d += d < 3 ? 1 : 5) more.add(`${"../".repeat(d)}etc/passwd`);
  for (const f of p.outsideFiles) {
    more.add(rel(f));
    more.add(f);
  }
  more.add(`src/../${climb}`);
  more.add(`./${climb}`);
  more.add(rel(path.join(dataDir, "auth-secret")));
  more.add(path.join(dataDir, "auth-secret"));
  more.add(rel(path.join(dataDir, "argus.db")));
  more.add(`${rel(path.join(p.root, ".."))}/index/symbols.sqlite`);
  for (const abs of ["/etc/passwd", "/etc/shadow", "/proc/self/environ", "/proc/self/cmdline", "/root/.ssh/id_rsa"])
    more.add(abs);
  more.add(`${p.root}/.env`);
  more.add(`${p.root}/../../../outside/target.txt`);
  for (const f of p.ignored) more.add(f);
  more.add("src/../.env");
  more.add("node_modules");
  more.add(".git");
  for (const s of p.symlinks) more.add(s);
  more.add("dir-link/");
  more.add("dir-link-rel/target.txt");
  more.add("root-link/etc/passwd");
  more.add("data-link/outside/target.txt");
  more.add("data-link/auth-secret");
  more.add(`src/up/${climb}`);
  more.add("src/deep/climb/etc/passwd");
  more.add("modules-link/pkg/index.js");
  for (const c of core) more.delete(c);
  return { core, more: [...more] };
}

const pct = (ch: string) => `%${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;

/** Ways to spell a path so that only a decoder or a normaliser would make it dangerous again. */
const DISGUISES: Record<string, (p: string) => string> = {
  plain: (p) => p,
  "encoded dots and slashes": (p) => p.replace(/[./]/g, pct),
  "encoded upper case": (p) => p.replace(/[./]/g, (ch) => pct(ch).toUpperCase()),
  "encoded dots only": (p) => p.replace(/\./g, "%2e"),
  "double encoded": (p) => p.replace(/[./]/g, (ch) => pct(ch).replace("%", "%25")),
  "overlong UTF-8": (p) => p.replace(/\./g, "%c0%ae").replace(/\//g, "%c0%af"),
  "fullwidth dot and slash": (p) => p.replace(/\./g, "\uff0e").replace(/\//g, "\uff0f"),
  "one-dot leader and division slash": (p) => p.replace(/\.\./g, "\u2024\u2024").replace(/\//g, "\u2215"),
  "two-dot leader and fraction slash": (p) => p.replace(/\.\./g, "\u2025").replace(/\//g, "\u2044"),
  "small full stop and big solidus": (p) => p.replace(/\./g, "\ufe52").replace(/\//g, "\u29f8"),
  backslashes: (p) => p.replace(/\//g, "\\"),
  "fullwidth backslash": (p) => p.replace(/\//g, "\uff3c"),
  "NUL suffix": (p) => `${p}\u0000.ts`,
  "NUL prefix": (p) => `src/app.ts\u0000${p}`,
  "trailing space and dot": (p) => `${p} .`,
  "file URL": (p) => `file://${p.startsWith("/") ? "" : "/"}${p}`,
  "doubled slashes": (p) => p.replace(/\//g, "//"),
  "home prefix": (p) => `~/${p}`,
};

/** The disguises every target gets. */
const COMMON = [
  "plain",
  "encoded dots and slashes",
  "double encoded",
  "backslashes",
  "NUL suffix",
  "fullwidth dot and slash",
];

/** ≥ 300 distinct hostile spellings aimed at the planted canaries (plus very long ones). */
export function hostilePaths(p: PlantedSnapshot, dataDir: string): string[] {
  const out = new Set<string>();
  const { core, more } = targets(p, dataDir);
  for (const t of core) for (const disguise of Object.values(DISGUISES)) out.add(disguise(t));
  for (const t of more) for (const name of COMMON) out.add(DISGUISES[name]!(t));
  const climb = path.relative(p.root, p.outsideFiles[0]!);
  out.add(`${"a/".repeat(2100)}${climb}`); // > 4 KB
  out.add(`${"../".repeat(1500)}etc/passwd`);
  out.add(`src/${"./".repeat(3000)}${climb}`);
  out.add(`${"x".repeat(300)}/${climb}`); // a 300-byte segment
  out.add(`src/${"\u00e9".repeat(200)}/../../${climb}`);
  out.add(`C:\\Windows\\win.ini`);
  out.add("\\\\server\\share\\target.txt");
  out.add("//server/share/target.txt");
  out.add("~root/.ssh/id_rsa");
  out.add("\u202e../../etc/passwd"); // right-to-left override
  out.add("src/app.ts\n../../etc/passwd");
  // git pathspec magic and glob characters: harmless as file names, dangerous if passed to git or rg as patterns.
  for (const magic of [
    ":/",
    ":/.env",
    ":(top).env",
    ":(glob)**/.env",
    ":(icase).ENV",
    ":(exclude)src",
    ":!src",
    "*.env",
    ".en?",
    "[.]env",
    "**/node_modules/**",
    "{.env,src/app.ts}",
  ])
    out.add(magic);
  return [...out];
}
