/**
 * Which GitLab merge request events start (or end) a review, and which connection a project belongs
 * to — from the fixture payloads written after GitLab's documented webhook format.
 */
import { describe, expect, it } from "vitest";
import { gitLabFixture } from "../../../test/helpers/gitlab-stand-in.ts";
import { belongsTo, pullActionOf } from "./intake.ts";

type Event = Parameters<typeof pullActionOf>[0];
const event = (name: string, action?: string) => {
  const e = gitLabFixture(name) as unknown as Event;
  return action ? { ...e, object_attributes: { ...e.object_attributes, action } } : e;
};

describe("GitLab merge request actions", () => {
  it("open, reopen, a push, draft → ready, close and merge map onto the pull-request job's actions", () => {
    expect(pullActionOf(event("merge_request.open.json"))).toBe("opened");
    expect(pullActionOf(event("merge_request.open.json", "reopen"))).toBe("reopened");
    expect(pullActionOf(event("merge_request.update-push.json"))).toBe("synchronize");
    expect(pullActionOf(event("merge_request.update-ready.json"))).toBe("ready_for_review");
    expect(pullActionOf(event("merge_request.open.json", "close"))).toBe("closed");
    expect(pullActionOf(event("merge_request.open.json", "merge"))).toBe("closed");
  });

  it("other updates and actions are not a reason to review", () => {
    expect(pullActionOf(event("merge_request.update-labels.json"))).toBeNull();
    expect(pullActionOf(event("merge_request.open.json", "approved"))).toBeNull();
    const toDraft = event("merge_request.update-ready.json");
    expect(pullActionOf({ ...toDraft, changes: { draft: { previous: false, current: true } } })).toBeNull();
  });
});

describe("a connection's projects", () => {
  it("are the connected project, or projects under the connected group — not a look-alike name", () => {
    expect(belongsTo("acme/shop", "acme/shop")).toBe(true);
    expect(belongsTo("Acme/Sub/shop", "acme")).toBe(true);
    expect(belongsTo("acme-evil/shop", "acme")).toBe(false);
    expect(belongsTo("acme/shop-2", "acme/shop")).toBe(false);
  });
});
