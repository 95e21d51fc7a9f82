"use client";
/**
 * @mention autocomplete for a chat composer. Typing `@` and the start of a name opens a list of the
 * workspace's members (workspaces.members; oneself left out); ↑/↓ choose, Enter or Tab picks, Esc
 * closes, a click picks too. Picking replaces the `@…` with the member's canonical token
 * (`@[Name](mention:<id>)`, server/shared/mentions.ts) and a space.
 *
 * In a room where asking is possible (`askable`: a project's or a review's; for members and owners), Argus is
 * offered first: picking it writes `@argus ` (plain text, the team chat's way of asking Argus).
 *
 * Render it right after the textarea it serves (its previous sibling): it listens to that textarea
 * itself, so a composer needs no more than this one element. Its key handling runs on the textarea
 * before the composer's own (React handles keys at the root) and stops the keys it uses there, so
 * Enter picks a member instead of sending while the list is open.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { mentionMatches, offersArgus } from "@/server/shared/mentions.ts";
import { MentionList, type MentionOption } from "./mention-list.tsx";
import { type OpenMention, useMentionTextarea } from "./use-mention-textarea.ts";

/** Members shown at once. */
const SHOWN = 8;

export function MentionAutocomplete({
  value,
  onChange,
  askable = false,
}: {
  value: string;
  onChange: (next: string) => void;
  /** The room takes `@argus` questions (a project's or a review's): offered to members and owners. */
  askable?: boolean;
}) {
  const trpc = useTRPC();
  const { workspace, user } = useWorkspace();
  const anchor = useRef<HTMLDivElement>(null);
  const [textarea, setTextarea] = useState<HTMLTextAreaElement | null>(null);
  const [open, setOpen] = useState<OpenMention | null>(null);
  const [active, setActive] = useState(0);
  const listId = useId();
  // Viewers watch answers; asking spends the workspace's model budget (server/ask/service.ts fromChat).
  const canAsk = askable && workspace.role !== "viewer";

  const members = useQuery({
    ...trpc.workspaces.members.queryOptions({ workspaceId: workspace.id }),
    enabled: open !== null,
    staleTime: 60_000,
  });
  const options = useMemo((): MentionOption[] => {
    if (!open) return [];
    const people = (members.data ?? [])
      .filter((m) => m.userId !== user.id && mentionMatches(m.name, open.query))
      .map((m): MentionOption => ({ kind: "member", userId: m.userId, name: m.name, email: m.email }));
    return [...(offersArgus(open.query, canAsk) ? [{ kind: "argus" } as const] : []), ...people].slice(0, SHOWN);
  }, [members.data, open, user.id, canAsk]);
  const visible = open !== null && options.length > 0;

  // The latest state for the textarea's native listeners (set up once per textarea).
  const latest = useRef({ visible, options, active, open, onChange });
  latest.current = { visible, options, active, open, onChange };

  useEffect(() => {
    const el = anchor.current?.previousElementSibling;
    setTextarea(el instanceof HTMLTextAreaElement ? el : null);
  }, []);

  const pickRef = useMentionTextarea(textarea, value, latest, setOpen, setActive);

  // The combobox relation, on the textarea (it is the composer's element, so set natively).
  useEffect(() => {
    if (!textarea) return;
    textarea.setAttribute("aria-autocomplete", "list");
    textarea.setAttribute("aria-expanded", String(visible));
    if (visible) {
      textarea.setAttribute("aria-controls", listId);
      textarea.setAttribute("aria-activedescendant", `${listId}-${active}`);
    } else {
      textarea.removeAttribute("aria-controls");
      textarea.removeAttribute("aria-activedescendant");
    }
  }, [textarea, visible, active, listId]);

  return (
    <div ref={anchor} className="relative">
      {visible && (
        <MentionList
          listId={listId}
          options={options}
          active={active}
          setActive={setActive}
          onPick={(i) => pickRef.current(i)}
        />
      )}
    </div>
  );
}
