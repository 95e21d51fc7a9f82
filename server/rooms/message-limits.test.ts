import { describe, expect, it } from "vitest";
import { clientMessages, type ClientMessage, SPECTATOR_MESSAGES } from "../shared/room-protocol.ts";
import {
  createMessageLimiter,
  DROP_AFTER_REFUSALS,
  MESSAGE_BUDGETS,
  personRule,
  type Sender,
} from "./message-limits.ts";
import { memoryRateLimitStore } from "../lib/rate-limit.ts";

const member = (socketId = "s1", personKey = "user:u1"): Sender => ({ socketId, personKey, guest: false });
const guest = (socketId = "g1", personKey = "share:x:1.2.3.4"): Sender => ({ socketId, personKey, guest: true });

async function allowedOf(
  limiter: ReturnType<typeof createMessageLimiter>,
  sender: Sender,
  kind: ClientMessage,
  n: number,
) {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await limiter.check(sender, kind)).allowed) allowed++;
  return allowed;
}

describe("message budgets", () => {
  it("every message kind has a budget; guests have one exactly for what they may send; guests' are smaller", () => {
    expect(Object.keys(MESSAGE_BUDGETS).sort()).toEqual(Object.keys(clientMessages).sort());
    for (const kind of Object.keys(clientMessages) as ClientMessage[]) {
      const { member: m, guest: g } = MESSAGE_BUDGETS[kind];
      expect(g !== null, kind).toBe(SPECTATOR_MESSAGES[kind]);
      if (g) {
        expect(g.burst, kind).toBeLessThan(m.burst);
        expect(g.perSecond, kind).toBeLessThan(m.perSecond);
      }
    }
    // The reads of a room's log and chat hold read slots; what stores something holds a write slot.
    for (const kind of ["join", "history", "chat.page", "chat.edits"] as const)
      expect(MESSAGE_BUDGETS[kind].slot, kind).toBe("read");
    for (const kind of ["chat.send", "chat.react", "finding.vote", "finding.resolve", "steer.hint"] as const)
      expect(MESSAGE_BUDGETS[kind].slot, kind).toBe("write");
  });
});

describe("message limiter", () => {
  it("allows a burst per socket and kind, then refuses with when a token is back; tokens refill", async () => {
    let t = 0;
    const limiter = createMessageLimiter({ now: () => t });
    const { burst, perSecond } = MESSAGE_BUDGETS.history.member;
    expect(await allowedOf(limiter, member(), "history", burst + 5)).toBe(burst);
    const refused = await limiter.check(member(), "history");
    expect(refused).toMatchObject({ allowed: false, drop: false });
    if (refused.allowed) throw new Error("unreachable");
    expect(refused.refusal.retryAfterMs).toBe(Math.ceil(1000 / perSecond));
    expect(refused.refusal.message).toMatch(/^The room's log is being read too fast; try again in \d+ s\.$/);
    // Other kinds, other sockets of other people: their own buckets.
    expect((await limiter.check(member(), "join")).allowed).toBe(true);
    expect((await limiter.check(member("s2", "user:u2"), "history")).allowed).toBe(true);
    t += 1000 / perSecond;
    expect((await limiter.check(member(), "history")).allowed).toBe(true);
    expect((await limiter.check(member(), "history")).allowed).toBe(false);
  });

  it("a guest's budget is smaller than a member's", async () => {
    const limiter = createMessageLimiter({ now: () => 0 });
    expect(await allowedOf(limiter, guest(), "history", 100)).toBe(MESSAGE_BUDGETS.history.guest!.burst);
    expect(await allowedOf(limiter, member(), "history", 100)).toBe(MESSAGE_BUDGETS.history.member.burst);
  });

  it("a kind guests may never send finds an empty bucket (closed, not open)", async () => {
    const limiter = createMessageLimiter({ now: () => 0 });
    expect((await limiter.check(guest(), "finding.vote")).allowed).toBe(false);
  });

  it("sustained refusals ask for the socket to be dropped", async () => {
    const limiter = createMessageLimiter({ now: () => 0 });
    const { burst } = MESSAGE_BUDGETS.join.guest!;
    const drops: boolean[] = [];
    for (let i = 0; i < burst + DROP_AFTER_REFUSALS; i++) {
      const d = await limiter.check(guest(), "join");
      if (!d.allowed) drops.push(d.drop);
    }
    expect(drops).toHaveLength(DROP_AFTER_REFUSALS);
    expect(drops.slice(0, -1).every((d) => !d)).toBe(true);
    expect(drops.at(-1)).toBe(true);
  });

  it("more sockets of one person do not multiply the person's budget (shared store)", async () => {
    const store = memoryRateLimitStore(() => 0);
    const limiter = createMessageLimiter({ store, now: () => 0 });
    const bucket = MESSAGE_BUDGETS["finding.vote"].member;
    let allowed = 0;
    for (let s = 0; s < 20; s++)
      allowed += await allowedOf(limiter, member(`s${s}`, "user:u1"), "finding.vote", bucket.burst);
    expect(allowed).toBe(personRule(bucket).max);
    expect(allowed).toBeLessThan(20 * bucket.burst);
    // Another person is untouched.
    expect((await limiter.check(member("other", "user:u2"), "finding.vote")).allowed).toBe(true);
  });

  it("forgets a socket's buckets when it goes", async () => {
    const limiter = createMessageLimiter({ now: () => 0 });
    await allowedOf(limiter, member(), "join", 100);
    limiter.forget("s1");
    expect((await limiter.check(member("s1", "user:other"), "join")).allowed).toBe(true);
  });
});
