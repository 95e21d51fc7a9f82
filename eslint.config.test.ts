/**
 * The boundary rules fire: for every boundary, a deliberate violation linted as if it were a file in
 * a zone the boundary guards must be reported with the boundary's id, and the same import in the
 * owning zone (or as a type-only import where allowed) must pass.
 */
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { BOUNDARIES } from "./eslint.boundaries.mjs";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: import.meta.dirname });
});

async function boundaryIds(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages
    .filter((m) => m.ruleId === "@typescript-eslint/no-restricted-imports")
    .map((m) => /\[([a-z0-9-]+)\]/.exec(m.message)?.[1] ?? "?");
}

const cases: { id: string; file: string; code: string; allowed: { file: string; code: string } }[] = [
  {
    id: "prisma",
    file: "server/review/x.ts",
    code: 'import { PrismaClient } from "@prisma/client";\nexport const c = PrismaClient;\n',
    allowed: {
      file: "server/db/x.ts",
      code: 'import { PrismaClient } from "@prisma/client";\nexport const c = PrismaClient;\n',
    },
  },
  {
    id: "lancedb",
    file: "server/snapshots/x.ts",
    code: 'import { connect } from "@lancedb/lancedb";\nexport const c = connect;\n',
    allowed: {
      file: "server/retrieval/store/x.ts",
      code: 'import { connect } from "@lancedb/lancedb";\nexport const c = connect;\n',
    },
  },
  {
    id: "store-index",
    file: "server/snapshots/x.ts",
    code: 'import { dropIndex } from "../retrieval/store/write.ts";\nexport const d = dropIndex;\n',
    allowed: {
      file: "server/snapshots/x.ts",
      code: 'import { dropIndex } from "../retrieval/store/index.ts";\nexport const d = dropIndex;\n',
    },
  },
  {
    id: "llm-sdk",
    file: "server/retrieval/embed/x.ts",
    code: 'import OpenAI from "openai";\nexport const o = OpenAI;\n',
    allowed: { file: "server/llm/x.ts", code: 'import OpenAI from "openai";\nexport const o = OpenAI;\n' },
  },
  {
    id: "llm-index",
    file: "server/review/reviewer/x.ts",
    code: 'import { createBudget } from "../../llm/budget.ts";\nexport const b = createBudget;\n',
    allowed: {
      file: "server/review/reviewer/x.ts",
      code: 'import { createBudget } from "../../llm/index.ts";\nexport const b = createBudget;\n',
    },
  },
  {
    id: "agent-index",
    file: "server/ask/x.ts",
    code: 'import { Sandbox } from "../agent/sandbox.ts";\nexport const s = Sandbox;\n',
    allowed: {
      file: "server/ask/x.ts",
      code: 'import { Sandbox } from "../agent/index.ts";\nexport const s = Sandbox;\n',
    },
  },
  {
    id: "agent-no-review",
    file: "server/agent/x.ts",
    code: 'import type { ReviewService } from "../review/index.ts";\nexport type S = ReviewService;\n',
    allowed: {
      file: "server/agent/x.ts",
      code: 'import { findingSchema } from "../shared/findings.ts";\nexport const f = findingSchema;\n',
    },
  },
  {
    id: "review-internals",
    file: "server/ask/x.ts",
    code: 'import { executeReview } from "../review/run.ts";\nexport const e = executeReview;\n',
    allowed: {
      file: "server/review/x.ts",
      code: 'import { executeReview } from "./run.ts";\nexport const e = executeReview;\n',
    },
  },
  {
    id: "review-feature",
    file: "server/ask/x.ts",
    code: 'import { executeReview } from "../review/index.ts";\nexport const e = executeReview;\n',
    allowed: {
      file: "server/cli/review.ts",
      code: 'import { executeReview } from "../review/index.ts";\nexport const e = executeReview;\n',
    },
  },
  {
    id: "socket-io",
    file: "server/events/x.ts",
    code: 'import { Server } from "socket.io";\nexport const s = Server;\n',
    allowed: { file: "server/realtime/x.ts", code: 'import { Server } from "socket.io";\nexport const s = Server;\n' },
  },
  {
    id: "redis",
    file: "server/rooms/x.ts",
    code: 'import { Redis } from "ioredis";\nexport const r = Redis;\n',
    allowed: { file: "server/cluster/x.ts", code: 'import { Redis } from "ioredis";\nexport const r = Redis;\n' },
  },
  {
    id: "bullmq",
    file: "server/review/x.ts",
    code: 'import { Queue } from "bullmq";\nexport const q = Queue;\n',
    allowed: { file: "server/jobs/x.ts", code: 'import { Queue } from "bullmq";\nexport const q = Queue;\n' },
  },
  {
    id: "no-bench-e2e",
    file: "server/retrieval/x.ts",
    code: 'import { buildCodeSet } from "../../bench/search/code-set.ts";\nexport const b = buildCodeSet;\n',
    allowed: {
      file: "bench/x.ts",
      code: 'import { buildCodeSet } from "./search/code-set.ts";\nexport const b = buildCodeSet;\n',
    },
  },
  {
    id: "server-app",
    file: "server/pipelines/workspace/x.ts",
    code: 'import { insertStep } from "../../../app/(app)/pipelines/_components/graph-edits.ts";\nexport const i = insertStep;\n',
    allowed: {
      file: "test/contracts/x.test.ts",
      code: 'import { insertStep } from "../../app/(app)/pipelines/_components/graph-edits.ts";\nexport const i = insertStep;\n',
    },
  },
  {
    id: "app-server",
    file: "app/_components/x.tsx",
    code: 'import { describeStages } from "@/server/review/export/markdown.ts";\nexport const d = describeStages;\n',
    allowed: {
      file: "app/_components/x.tsx",
      code: 'import type { AppRouter } from "@/server/trpc/router.ts";\nimport { SEVERITIES } from "@/server/shared/findings.ts";\nexport type R = AppRouter;\nexport const s = SEVERITIES;\n',
    },
  },
  {
    id: "shared-pure",
    file: "server/shared/x.ts",
    code: 'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
    allowed: {
      file: "server/shared/x.ts",
      code: 'import { z } from "zod";\nimport { SEVERITIES } from "./findings.ts";\nexport const s = z.enum(SEVERITIES);\n',
    },
  },
];

describe("the layer boundaries (eslint.boundaries.mjs)", () => {
  it("has a deliberate-violation case for every boundary", () => {
    expect(cases.map((c) => c.id).sort()).toEqual(BOUNDARIES.map((b) => b.id).sort());
  });

  for (const c of cases) {
    it(`[${c.id}] fires on ${c.file} and lets ${c.allowed.file} through`, async () => {
      expect(await boundaryIds(c.file, c.code)).toContain(c.id);
      expect(await boundaryIds(c.allowed.file, c.allowed.code)).toEqual([]);
    });
  }

  it("review: the composition root and the routers use its index; features only name its types", async () => {
    const service = 'import { createReviewService } from "./review/index.ts";\nexport const c = createReviewService;\n';
    expect(await boundaryIds("server/context.ts", service)).toEqual([]);
    expect(await boundaryIds("server/context.ts", service.replace("index.ts", "service.ts"))).toEqual([
      "review-internals",
    ]);
    const typeOnly = 'import type { Steering } from "../review/index.ts";\nexport type S = Steering;\n';
    expect(await boundaryIds("server/realtime/x.ts", typeOnly)).toEqual([]);
    expect(
      await boundaryIds(
        "server/jobs/x.ts",
        'import { REVIEW_JOB } from "../review/index.ts";\nexport const j = REVIEW_JOB;\n',
      ),
    ).toEqual(["review-feature"]);
  });

  it("shared-pure also refuses other packages and leaving the folder", async () => {
    expect(await boundaryIds("server/shared/x.ts", 'import React from "react";\nexport const r = React;\n')).toEqual([
      "shared-pure",
    ]);
    expect(await boundaryIds("server/shared/x.ts", 'import { x } from "../errors.ts";\nexport const y = x;\n')).toEqual(
      ["shared-pure"],
    );
  });
});
