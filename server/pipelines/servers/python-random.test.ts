import { describe, expect, it } from "vitest";
import { PythonRandom } from "./python-random.ts";

// Expected values printed by CPython 3.12: random.seed(s); random.shuffle(list(range(n))).
describe("PythonRandom", () => {
  it("shuffles like random.seed(42); random.shuffle(range(10))", () => {
    expect(new PythonRandom(42).shuffle([...Array(10).keys()])).toEqual([7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
  });
  it("shuffles a longer list with another seed", () => {
    expect(new PythonRandom(7).shuffle([...Array(100).keys()]).slice(0, 10)).toEqual([
      33, 25, 99, 84, 78, 81, 21, 93, 82, 1,
    ]);
  });
  it("draws the same raw numbers", () => {
    const r = new PythonRandom(42);
    expect(r.getrandbits(32)).toBe(2746317213);
    expect(r.random()).toBe(0.11133106816568039);
  });
});
