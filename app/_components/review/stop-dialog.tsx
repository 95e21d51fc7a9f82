"use client";
/**
 * The one Stop of a running review, with its choice made plain: stop now and keep a partial report
 * (an agent review: the model request in flight is aborted, the report lists what was found so far),
 * or cancel (nothing is kept). A static review has no agent to stop: only the cancel.
 */
import { useMutation } from "@tanstack/react-query";
import { Square } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { ackErrorText } from "@/server/shared/ack-text.ts";
import { reviewRoom } from "@/server/shared/rooms.ts";
import type { SteeringState } from "@/server/shared/steering.ts";
import { steeringNow } from "../rooms/steering-bar.tsx";
import { Button, Modal } from "../ui.tsx";

const TIMEOUT_MS = 10_000;

export function StopDialog({
  review: r,
  room,
  onCancelled,
}: {
  review: { uid: string; engine: string; status: string; steering: SteeringState };
  room: RoomState<"review">;
  onCancelled: () => void;
}) {
  const trpc = useTRPC();
  const cancel = useMutation(
    trpc.reviews.cancel.mutationOptions({
      onSuccess: onCancelled,
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  // An agent review that runs can stop with a partial report; a stop asked for already is ending.
  const agent = r.engine === "agent" && r.status === "running" && room.connected;
  const stopped = !!steeringNow(r.steering, room).stopRequested;
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const { socket } = useRoomAccess();

  async function stopWithReport() {
    setBusy(true);
    try {
      const ack = await socket()
        .timeout(TIMEOUT_MS)
        .emitWithAck("steer.stop", { room: reviewRoom(r.uid) });
      if (ack.ok) setOpen(false);
      else toast.error(ackErrorText(ack));
    } catch {
      toast.error("No answer from the server; check your connection.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <Button variant="secondary" disabled={stopped} onClick={() => setOpen(true)}>
        <Square className="size-3.5" aria-hidden /> Stop
      </Button>
      <Modal open={open} onClose={() => setOpen(false)} title="Stop this review?">
        <div className="space-y-3">
          {agent && (
            <div className="rounded-md border border-zinc-200 p-3 dark:border-zinc-700">
              <Button className="w-full justify-center" busy={busy} onClick={() => void stopWithReport()}>
                Stop with a partial report
              </Button>
              <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">
                Ends at once: the model&apos;s request in flight is aborted and no tool runs after it. The review
                completes with what was found so far, marked as stopped by you.
              </p>
            </div>
          )}
          <div className="rounded-md border border-zinc-200 p-3 dark:border-zinc-700">
            <Button
              variant="danger"
              className="w-full justify-center"
              busy={cancel.isPending}
              onClick={() => {
                cancel.mutate({ uid: r.uid });
                setOpen(false);
              }}
            >
              Cancel the review
            </Button>
            <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">
              Ends at once and keeps nothing: no report, no findings. The review shows as cancelled.
            </p>
          </div>
          <div className="flex justify-end">
            <Button variant="ghost" onClick={() => setOpen(false)}>
              Keep it running
            </Button>
          </div>
        </div>
      </Modal>
    </>
  );
}
