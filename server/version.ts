import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../package.json");

/** The app's version, from package.json. */
export const version: string = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
