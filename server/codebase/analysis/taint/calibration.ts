// Written by `npm run bench -- static` (bench/static.ts) from Argus's suites: do not edit by hand.
import type { Calibration } from "./calibration-model.ts";

export const CALIBRATION: Calibration = {
  rules: {
    "cookie/insecure": { tp: 7, fp: 0 },
    "crypto/insecure-random": { tp: 18, fp: 0 },
    "crypto/weak-hash": { tp: 15, fp: 0 },
    "deserialization/unsafe": { tp: 10, fp: 0 },
    "injection/code": { tp: 10, fp: 0 },
    "injection/command": { tp: 83, fp: 0 },
    "injection/ldap": { tp: 3, fp: 0 },
    "injection/nosql": { tp: 19, fp: 0 },
    "injection/sql": { tp: 38, fp: 0 },
    "injection/template": { tp: 4, fp: 0 },
    "injection/xpath": { tp: 3, fp: 0 },
    "path-traversal": { tp: 16, fp: 0 },
    "redirect/open": { tp: 15, fp: 0 },
    ssrf: { tp: 29, fp: 0 },
    "trust-boundary/session": { tp: 6, fp: 0 },
    "xss/autoescape-off": { tp: 12, fp: 0 },
    "xss/reflected": { tp: 40, fp: 0 },
    xxe: { tp: 15, fp: 0 },
  },
  origins: { local: { tp: 19, fp: 0 }, queue: { tp: 13, fp: 0 }, request: { tp: 280, fp: 0 } },
};
