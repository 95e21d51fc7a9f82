import { describe, expect, it, vi } from "vitest";
import { freshEvents, RoomFeed } from "./room-delivery.ts";

const e = (seq: number) => ({ seq });

describe("freshEvents", () => {
  it("keeps events past the last seq, each once, in order", () => {
    expect(freshEvents(3, [e(2), e(3), e(5), e(4), e(5)])).toEqual({ fresh: [e(4), e(5)], lastSeq: 5 });
    expect(freshEvents(0, [])).toEqual({ fresh: [], lastSeq: 0 });
    expect(freshEvents(9, [e(1), e(9)])).toEqual({ fresh: [], lastSeq: 9 });
  });

  it("log and live overlapping at a reconnect rebuild the log exactly", () => {
    const log = Array.from({ length: 20 }, (_, i) => e(i + 1));
    // Live 1–8, cut, live resumes at 13 before the history reply (9–15) arrives, then live 16–20.
    let last = 0;
    const got: { seq: number }[] = [];
    const take = (batch: { seq: number }[]) => {
      const r = freshEvents(last, batch);
      got.push(...r.fresh);
      last = r.lastSeq;
    };
    take(log.slice(0, 8));
    const buffered = log.slice(12, 15);
    take(log.slice(8, 15)); // history after seq 8
    take(buffered);
    take(log.slice(15));
    expect(got).toEqual(log);
  });
});

describe("RoomFeed", () => {
  it("holds live events while the log is read, then merges them: each event once, in order", () => {
    const out: number[] = [];
    const feed = new RoomFeed<{ seq: number }>((fresh) => out.push(...fresh.map((f) => f.seq)));
    expect(feed.startJoin()).toBe(0);
    feed.live(e(3)); // published between the join and the log read
    feed.page([e(1), e(2), e(3)]);
    feed.live(e(4));
    feed.caughtUp();
    feed.live(e(5));
    expect(out).toEqual([1, 2, 3, 4, 5]);
    // A reconnect joins after the last seq; what the log repeats is dropped.
    expect(feed.startJoin()).toBe(5);
    feed.live(e(7));
    feed.page([e(5), e(6), e(7)]);
    feed.caughtUp();
    expect(out).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe("RoomFeed: live events out of order (several processes publish into one room)", () => {
  const joined = (opts: ConstructorParameters<typeof RoomFeed<{ seq: number }>>[1]) => {
    const out: number[] = [];
    const feed = new RoomFeed<{ seq: number }>((fresh) => out.push(...fresh.map((f) => f.seq)), opts);
    feed.startJoin();
    feed.page([e(1), e(2)]);
    feed.caughtUp();
    return { feed, out };
  };

  it("holds an event past a gap until the missing one arrives, then gives both in order (no log read)", () => {
    vi.useFakeTimers();
    try {
      const asked: number[] = [];
      const { feed, out } = joined({ fetchAfter: (after) => asked.push(after), gapWaitMs: 100 });
      feed.live(e(4));
      feed.live(e(5));
      expect(out).toEqual([1, 2]);
      feed.live(e(3));
      expect(out).toEqual([1, 2, 3, 4, 5]);
      vi.advanceTimersByTime(500);
      expect(asked).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads the log after the last seq when the gap stays open, and merges what it finds", () => {
    vi.useFakeTimers();
    try {
      const asked: number[] = [];
      const { feed, out } = joined({ fetchAfter: (after) => asked.push(after), gapWaitMs: 100 });
      feed.live(e(4));
      vi.advanceTimersByTime(99);
      expect(asked).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(asked).toEqual([2]);
      feed.live(e(6)); // arrives while the log is read: held like during a join
      feed.page([e(3), e(4), e(5)]);
      feed.caughtUp();
      expect(out).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a seq the log does not have either (never stored): the feed goes on past it instead of waiting forever", () => {
    vi.useFakeTimers();
    try {
      const { feed, out } = joined({ fetchAfter: () => undefined, gapWaitMs: 50 });
      feed.live(e(4));
      vi.advanceTimersByTime(50);
      feed.page([e(4)]);
      feed.caughtUp();
      feed.live(e(5));
      expect(out).toEqual([1, 2, 4, 5]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("duplicates and repeats stay out while a gap is open", () => {
    const { feed, out } = joined({ fetchAfter: () => undefined });
    feed.live(e(2));
    feed.live(e(4));
    feed.live(e(4));
    feed.live(e(3));
    feed.live(e(3));
    expect(out).toEqual([1, 2, 3, 4]);
    feed.close();
  });
});
