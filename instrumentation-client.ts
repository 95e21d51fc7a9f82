// Runs in the browser before the app's own modules (Next's client instrumentation entry). zod builds a
// JIT parser for each object schema as the schema is created, probing `new Function` first; the page's
// CSP (no unsafe-eval) reports that probe as a violation. The shared schemas are created at module load,
// so jitless must be set before any of them: here.
import { z } from "zod";

z.config({ jitless: true });
