import { describe, expect, it } from "vitest";
import { locateEvidence } from "./locate.ts";

const file = [
  "import db from './db';", // 1
  "", // 2
  "export function getUser(id: string) {", // 3
  "  const sql = `SELECT * FROM users WHERE id = ${id}`;", // 4
  "  return db.query(sql);", // 5
  "}", // 6
  "", // 7
  "export function remove(id: string) {", // 8
  "  return db.query(`DELETE FROM users WHERE id = ${id}`);", // 9
  "}", // 10
].join("\n");

describe("locateEvidence", () => {
  it("accepts evidence inside the claimed lines, ignoring indentation, and quotes the file's own lines", () => {
    const r = locateEvidence(file, {
      startLine: 3,
      endLine: 5,
      evidence: "const sql = `SELECT * FROM users WHERE id = ${id}`;\nreturn   db.query(sql);",
    });
    expect(r).toEqual({
      status: "ok",
      startLine: 3,
      endLine: 5,
      evidence: "  const sql = `SELECT * FROM users WHERE id = ${id}`;\n  return db.query(sql);",
    });
  });

  it("repairs a range that is off, choosing the occurrence nearest the claimed line", () => {
    expect(locateEvidence(file, { startLine: 40, endLine: 41, evidence: "DELETE FROM users" })).toMatchObject({
      status: "repaired",
      startLine: 9,
      endLine: 9,
    });
    expect(locateEvidence(file, { startLine: 8, endLine: 8, evidence: "db.query(" })).toMatchObject({
      status: "repaired",
      startLine: 9,
      endLine: 9,
    });
    expect(locateEvidence(file, { startLine: 1, endLine: 1, evidence: "db.query(" })).toMatchObject({
      status: "repaired",
      startLine: 5,
      endLine: 5,
    });
  });

  it("strips line numbers copied from tool output, and matches around an elided middle", () => {
    expect(
      locateEvidence(file, {
        startLine: 4,
        endLine: 5,
        evidence: "   4 |   const sql = `SELECT * FROM users WHERE id = ${id}`;\n   5 |   return db.query(sql);",
      }),
    ).toMatchObject({ status: "ok", startLine: 4, endLine: 5 });
    expect(
      locateEvidence(file, {
        startLine: 3,
        endLine: 6,
        evidence: "export function getUser(id: string) {\n  // ...\n}",
      }),
    ).toMatchObject({ status: "ok", evidence: expect.stringContaining("return db.query(sql);") });
  });

  it("drops fabricated evidence and lines past the end of the file", () => {
    expect(locateEvidence(file, { startLine: 4, endLine: 4, evidence: "eval(req.body.code)" })).toEqual({
      status: "dropped",
      reason: "the quoted evidence does not occur in the file",
    });
    expect(locateEvidence(file, { startLine: 50, endLine: 52, evidence: "" })).toMatchObject({ status: "dropped" });
    expect(locateEvidence(file, { startLine: 50, endLine: 52, evidence: "}" })).toMatchObject({ status: "dropped" });
  });

  it("fills in the quote when none was given, clamping the range to the file", () => {
    expect(locateEvidence(file, { startLine: 9, endLine: 30, evidence: "" })).toEqual({
      status: "repaired",
      startLine: 9,
      endLine: 10,
      evidence: "  return db.query(`DELETE FROM users WHERE id = ${id}`);\n}",
    });
  });
});
