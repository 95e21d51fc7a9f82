/**
 * The secrets rule's noise on real apps: password hashes in seed data, placeholders, and where a
 * literal sits (production code, seed data, tests / fixtures / examples).
 */
import { describe, expect, it } from "vitest";
import { makeContext } from "./context.ts";
import { runSecretRules, secretLocation } from "./secrets.ts";

const scan = (path: string, source: string) =>
  runSecretRules(makeContext(path, "javascript", "javascript", source, null)).map((f) => ({
    ruleId: f.ruleId,
    severity: f.severity,
    line: f.startLine,
  }));

// Built at run time so this file holds no literal a scanner would flag.
const token = ["q8Z", "v2Lm", "X9pR", "t4Wk", "b7Nc", "Y3hJ"].join("");

describe("the secrets rule", () => {
  it("reports a high-entropy literal in production code at high severity", () => {
    expect(scan("src/config.js", `const apiToken = "${token}";\n`)).toEqual([
      { ruleId: "secrets/high-entropy-literal", severity: "high", line: 1 },
    ]);
  });

  it("leaves password hashes alone (bcrypt, argon2, scrypt, pbkdf2, sha512-crypt)", () => {
    const hashes = [
      "$2b$10$" + "N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
      "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
      "$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E",
      "pbkdf2_sha256$260000$abcdEFGH1234$Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg",
      "$6$rounds=5000$saltsalt$" + "A".repeat(20) + "b3Xk9Lm2Qp7Rt4Wv8Yz1Cd5Fg6Hj0Kn3Mp7Qs2Tu9Vw",
    ];
    const seed = hashes.map((h, i) => `  { name: "u${i}", passwordHash: "${h}" },`).join("\n");
    expect(scan("src/users.js", `module.exports = [\n${seed}\n];\n`)).toEqual([]);
  });

  it("leaves placeholders alone", () => {
    const src = [
      'const apiKey = "your-api-key-here";',
      'const secret = "replace_me_with_a_real_one";',
      'const token = "xxxxxxxxxxxxxxxx";',
      'const password = "<password>";',
      'const stripeKey = "sk_test_4eC39HqLyjWDarjtT1zdp7dc";',
    ].join("\n");
    expect(scan("src/config.js", src)).toEqual([]);
  });

  it("says where a literal sits: seed data low, tests, fixtures and examples info", () => {
    const src = `const apiToken = "${token}";\n`;
    expect(scan("db/seeds/users.js", src)).toMatchObject([{ severity: "low" }]);
    expect(scan("test/helpers/config.js", src)).toMatchObject([{ severity: "info" }]);
    expect(scan("test/fixtures/app/config.js", src)).toMatchObject([{ severity: "info" }]);
    expect(scan("examples/basic/server.js", src)).toMatchObject([{ severity: "info" }]);
    expect(secretLocation({ path: "config/.env.example", isTest: false })).toBe("test");
    expect(secretLocation({ path: "prisma/seed.ts", isTest: false })).toBe("seed");
    expect(secretLocation({ path: "server/auth.ts", isTest: false })).toBe("production");
  });

  it("still reports a known key format in a test file (a leaked key is valid anywhere), one severity lower", () => {
    const key = ["AKIA", "Q3EGRTMXW7", "ZN5LPU"].join("");
    expect(scan("test/aws.test.js", `const k = "${key}";\n`)).toMatchObject([
      { ruleId: "secrets/aws-access-key", severity: "high" },
    ]);
  });
});
