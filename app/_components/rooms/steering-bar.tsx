"use client";
/**
 * Steering a running agent review: a hint for the model (given at its next iteration), pause /
 * resume (the Stop is the page's one Stop button, review/stop-dialog.tsx). Members steer; viewers and spectators see the state and why
 * they cannot.
 * The state shown is the review's (reviews.get, so a reload shows it) brought up to date by the room's
 * steering events.
 */
import { Pause, Play } from "lucide-react";
import { type FormEvent, useMemo, useState } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import type { RoomName } from "@/server/shared/rooms.ts";
import { ackErrorText } from "@/server/shared/ack-text.ts";
import type { Ack } from "@/server/shared/room-protocol.ts";
import { hintTextSchema, type SteeringState } from "@/server/shared/steering.ts";
import { Button, Card, Input } from "../ui.tsx";

const TIMEOUT_MS = 10_000;

/** The steering state after the room's latest steering events. */
export function steeringNow(initial: SteeringState, state: RoomState<"review">): SteeringState {
  let s = initial;
  for (const e of state.events) {
    if (e.type !== "steering") continue;
    const who = { by: e.payload.by, at: e.payload.at };
    if (e.payload.action === "paused") s = { ...s, paused: who };
    if (e.payload.action === "resumed") s = { ...s, paused: null };
    if (e.payload.action === "stop_requested") s = { ...s, stopRequested: who };
  }
  return s;
}

export function SteeringBar({
  room,
  state,
  steering: initial,
  canSteer,
}: {
  room: RoomName<"review">;
  state: RoomState<"review">;
  steering: SteeringState;
  canSteer: boolean;
}) {
  const steering = useMemo(() => steeringNow(initial, state), [initial, state]);
  const [hint, setHint] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const { socket, readOnly } = useRoomAccess();

  async function send(what: string, call: () => Promise<Ack>) {
    setBusy(what);
    try {
      const r = await call();
      setError(r.ok ? null : ackErrorText(r));
      return r.ok;
    } catch {
      setError("No answer from the server; check your connection.");
      return false;
    } finally {
      setBusy(null);
    }
  }
  const s = () => socket().timeout(TIMEOUT_MS);
  async function submitHint(e: FormEvent) {
    e.preventDefault();
    const checked = hintTextSchema.safeParse(hint);
    if (!checked.success) return setError(checked.error.issues[0]?.message ?? "That hint cannot be sent.");
    if (await send("hint", () => s().emitWithAck("steer.hint", { room, text: hint }))) setHint("");
  }
  const disabled = !canSteer || !state.connected || !!steering.stopRequested;

  return (
    <Card className="p-4" aria-label="Steer the review">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-sm font-semibold">Steer</h2>
        {steering.stopRequested ? (
          <span className="text-sm text-zinc-600" role="status">
            Stopped by {steering.stopRequested.by.name}: the review ends with a partial report.
          </span>
        ) : steering.paused ? (
          <span className="text-sm text-amber-700 dark:text-amber-400" role="status">
            Paused by {steering.paused.by.name}: no model request until it is resumed.
          </span>
        ) : null}
        <span className="ml-auto flex gap-2">
          {steering.paused ? (
            <Button
              variant="secondary"
              disabled={disabled}
              busy={busy === "resume"}
              onClick={() => void send("resume", () => s().emitWithAck("steer.resume", { room }))}
            >
              <Play className="size-3.5" aria-hidden /> Resume
            </Button>
          ) : (
            <Button
              variant="secondary"
              disabled={disabled}
              busy={busy === "pause"}
              onClick={() => void send("pause", () => s().emitWithAck("steer.pause", { room }))}
            >
              <Pause className="size-3.5" aria-hidden /> Pause
            </Button>
          )}
        </span>
      </div>
      <form className="mt-3 flex gap-2" onSubmit={(e) => void submitHint(e)}>
        <Input
          aria-label="Hint for the agent"
          value={hint}
          disabled={disabled}
          onChange={(e) => setHint(e.target.value)}
          placeholder={
            canSteer
              ? "A hint for the agent, e.g. “also check the auth middleware”"
              : (readOnly ?? "Viewers watch; members steer.")
          }
        />
        <Button type="submit" disabled={disabled || !hint.trim()} busy={busy === "hint"}>
          Send hint
        </Button>
      </form>
      {error && (
        <p className="mt-2 text-xs text-red-700" role="alert">
          {error}
        </p>
      )}
    </Card>
  );
}
