#!/usr/bin/env node
// `npx argus <command>`: loads the TypeScript CLI through tsx in this same process.
import { register } from "tsx/esm/api";

register();
await import("../server/cli/index.ts");
