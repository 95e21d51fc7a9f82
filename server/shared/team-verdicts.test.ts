import { describe, expect, it } from "vitest";
import { confirmedByTeam, teamVerdict, type Verdict } from "./team-verdicts.ts";

const votes = (...v: Verdict[]) => v.map((verdict) => ({ verdict }));

describe("team verdicts", () => {
  it("the verdict most votes gave; none without votes or on a tie", () => {
    expect(teamVerdict(votes("real", "false_positive", "real"))).toBe("real");
    expect(teamVerdict(votes("wont_fix"))).toBe("wont_fix");
    expect(teamVerdict(votes())).toBeNull();
    expect(teamVerdict(votes("real", "false_positive"))).toBeNull();
  });

  it("confirmed by the team: real verdicts of the judged findings", () => {
    expect(
      confirmedByTeam([
        { votes: votes("real") },
        { votes: votes("real", "real", "false_positive") },
        { votes: votes("false_positive") },
        { votes: votes("real", "wont_fix") }, // split: not judged
        { votes: [] },
      ]),
    ).toEqual({ confirmed: 2, judged: 3 });
  });
});
