import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatZodIssues } from "./zod-issues.ts";

const error = z
  .object({ name: z.string().min(1, "Give it a name."), tags: z.array(z.string()) })
  .refine(() => false, { message: "Something about the whole." })
  .safeParse({ name: "", tags: [1] }).error!;

describe("formatZodIssues", () => {
  it("writes one path: message line per problem, nested paths dotted", () => {
    expect(formatZodIssues(error)).toBe(
      "name: Give it a name.\ntags.0: Invalid input: expected string, received number",
    );
  });

  it("names path-less problems by the root label, with a prefix, separator and limit", () => {
    const whole = z
      .string()
      .refine(() => false, "Nope.")
      .safeParse("x").error!;
    expect(formatZodIssues(whole)).toBe("Nope.");
    expect(formatZodIssues(whole, { root: "arguments", prefix: "- " })).toBe("- arguments: Nope.");
    expect(formatZodIssues(error, { separator: "; ", limit: 1 })).toBe("name: Give it a name.");
  });
});
