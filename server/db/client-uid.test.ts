import { describe, expect, it } from "vitest";
import { DomainError } from "../errors.ts";
import { insertWithClientUid } from "./client-uid.ts";

/** Prisma's unique-violation error, as both adapters raise it (code P2002). */
const uniqueViolation = Object.assign(new Error("Unique constraint failed on the fields: (`uid`)"), { code: "P2002" });

describe("insertWithClientUid", () => {
  it("returns what the insert returns", async () => {
    await expect(insertWithClientUid("project", async () => ({ uid: "u1" }))).resolves.toEqual({ uid: "u1" });
  });

  it("turns a unique violation into a conflict naming the thing and what to do", async () => {
    const err = await insertWithClientUid("prompt", () => Promise.reject(uniqueViolation)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({
      kind: "conflict",
      message: "A prompt with this id already exists; reload the page and try again.",
    });
  });

  it("passes any other error through unchanged", async () => {
    const other = new Error("disk full");
    await expect(insertWithClientUid("project", () => Promise.reject(other))).rejects.toBe(other);
  });
});
