"use client";
/**
 * "Share" on the review page (members and owners): make a read-only link to this review's live room
 * for people without an account — for 1, 7 or 30 days — copy it (shown once: only its hash is kept),
 * and see and revoke the links that still work. A revoked link stops working at once, also for pages
 * that have it open.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, Share2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { SHARE_LIFETIME_LABEL, SHARE_LIFETIMES, type ShareLifetime, sharePath } from "@/server/shared/shares.ts";
import { Button, Input, Modal, Select } from "../ui.tsx";
import { formatDate } from "./format.ts";

function CopyLink({ url }: { url: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="flex gap-2">
      <Input readOnly value={url} aria-label="New share link" onFocus={(e) => e.currentTarget.select()} />
      <Button
        variant="secondary"
        aria-label="Copy share link"
        onClick={async () => {
          await navigator.clipboard?.writeText(url).catch(() => undefined);
          setCopied(true);
        }}
      >
        <Copy className="size-3.5" aria-hidden /> {copied ? "Copied" : "Copy"}
      </Button>
    </div>
  );
}

export function ShareDialog({ reviewUid }: { reviewUid: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [lifetime, setLifetime] = useState<ShareLifetime>("7d");
  const [made, setMade] = useState<string | null>(null);
  const shares = useQuery({ ...trpc.shares.list.queryOptions({ reviewUid }), enabled: open });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.shares.list.queryKey({ reviewUid }) });
  const onError = (err: unknown) => toast.error(errorInfo(err).message);
  const create = useMutation(
    trpc.shares.create.mutationOptions({
      onSuccess: (s) => {
        setMade(`${window.location.origin}${sharePath(s.token)}`);
        void refresh();
      },
      onError,
    }),
  );
  const revoke = useMutation(
    trpc.shares.revoke.mutationOptions({
      onSuccess: () => {
        toast.success("Share link revoked: it no longer opens this review, also where it is open now.");
        void refresh();
      },
      onError,
    }),
  );
  const close = () => {
    setOpen(false);
    setMade(null);
  };

  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        <Share2 className="size-3.5" aria-hidden /> Share
      </Button>
      <Modal open={open} onClose={close} title="Share this review">
        <p className="text-sm text-zinc-600 dark:text-zinc-300">
          Anyone with a share link watches this review live — the agent&apos;s activity, the team chat, the findings and
          the report — without an account. They cannot post, vote or steer, and see nothing else of the workspace.
        </p>
        <form
          className="mt-4 flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ reviewUid, lifetime });
          }}
        >
          <label className="text-sm">
            <span className="mb-1 block text-xs text-zinc-500">Works for</span>
            <Select
              aria-label="Link works for"
              value={lifetime}
              onChange={(e) => setLifetime(e.target.value as ShareLifetime)}
            >
              {(Object.keys(SHARE_LIFETIMES) as ShareLifetime[]).map((l) => (
                <option key={l} value={l}>
                  {SHARE_LIFETIME_LABEL[l]}
                </option>
              ))}
            </Select>
          </label>
          <Button type="submit" busy={create.isPending}>
            Create link
          </Button>
        </form>
        {made && (
          <div className="mt-4 space-y-1" role="status">
            <CopyLink url={made} />
            <p className="text-xs text-amber-700 dark:text-amber-400">
              Copy it now: Argus keeps only a fingerprint of the link and cannot show it again.
            </p>
          </div>
        )}
        <h3 className="mt-5 text-sm font-medium">Links that work now</h3>
        {shares.isError && <p className="text-sm text-red-700">{errorInfo(shares.error).message}</p>}
        {shares.data && shares.data.length === 0 && <p className="mt-1 text-sm text-zinc-500">None.</p>}
        {shares.data && shares.data.length > 0 && (
          <ul className="mt-1 divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label="Share links">
            {shares.data.map((s) => (
              <li key={s.uid} className="flex items-center gap-2 py-2">
                <span className="min-w-0 flex-1">
                  By {s.createdBy} · {formatDate(s.createdAt)}
                  <span className="block text-xs text-zinc-500">expires {formatDate(s.expiresAt)}</span>
                </span>
                <Button
                  variant="secondary"
                  busy={revoke.isPending && revoke.variables?.uid === s.uid}
                  onClick={() => revoke.mutate({ uid: s.uid })}
                >
                  Revoke
                </Button>
              </li>
            ))}
          </ul>
        )}
        <div className="mt-5 flex justify-end">
          <Button variant="secondary" onClick={close}>
            Done
          </Button>
        </div>
      </Modal>
    </>
  );
}
