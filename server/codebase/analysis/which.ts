/**
 * Finds an executable on PATH without running a shell (no `which`, no `command -v`): optional tools
 * (ctags, ruff, bandit) are detected by looking, so their absence costs nothing and says so plainly.
 */
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { childProcessEnv } from "../../config.ts";

const cache = new Map<string, string | null>();

export function findExecutable(name: string, envPath = childProcessEnv().PATH ?? ""): string | null {
  const key = `${name}\0${envPath}`;
  if (cache.has(key)) return cache.get(key)!;
  let found: string | null = null;
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      found = candidate;
      break;
    } catch {
      // not here: keep looking
    }
  }
  cache.set(key, found);
  return found;
}
