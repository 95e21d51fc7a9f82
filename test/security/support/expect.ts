/** Assertions the suite's files share. */
import { expect } from "vitest";

/** A refusal or failure reason a person can act on: a sentence, not a code or an empty string. */
export function expectMessage(text: string | null | undefined, what = "the message"): void {
  expect(text?.trim() ?? "", `${what} is missing or too short to say what happened`).toMatch(/^\S.{9,}/s);
}
