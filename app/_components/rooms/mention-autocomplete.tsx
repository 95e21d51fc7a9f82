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
import { Bot } from "lucide-react";
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import {
  activeMentionQuery,
  insertArgus,
  insertMention,
  mentionMatches,
  offersArgus,
} from "@/server/shared/mentions.ts";
import { cx } from "../ui.tsx";
import { Avatar } from "./avatar.tsx";

/** Members shown at once. */
const SHOWN = 8;

/** An entry of the list: Argus, or a member. */
type Option = { kind: "argus" } | { kind: "member"; userId: string; name: string; email: string };

interface Open {
  start: number;
  query: string;
}

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
  const [open, setOpen] = useState<Open | null>(null);
  const [active, setActive] = useState(0);
  // The `@` the reader closed with Esc: it stays closed until they type another one.
  const dismissed = useRef<number | null>(null);
  const caretAfterPick = useRef<number | null>(null);
  /** Picks the i-th option (set by the listener effect, used by clicks). */
  const pickRef = useRef<(i: number) => void>(() => undefined);
  const listId = useId();
  // Viewers watch answers; asking spends the workspace's model budget (server/ask/service.ts fromChat).
  const canAsk = askable && workspace.role !== "viewer";

  const members = useQuery({
    ...trpc.workspaces.members.queryOptions({ workspaceId: workspace.id }),
    enabled: open !== null,
    staleTime: 60_000,
  });
  const options = useMemo((): Option[] => {
    if (!open) return [];
    const people = (members.data ?? [])
      .filter((m) => m.userId !== user.id && mentionMatches(m.name, open.query))
      .map((m): Option => ({ kind: "member", userId: m.userId, name: m.name, email: m.email }));
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

  useEffect(() => {
    if (!textarea) return;
    const update = () => {
      const found = activeMentionQuery(textarea.value, textarea.selectionStart ?? 0);
      if (!found || found.start !== dismissed.current) dismissed.current = null;
      const next = found && dismissed.current === null ? found : null;
      setOpen((had) => (had?.start === next?.start && had?.query === next?.query ? had : next));
      if (next?.start !== latest.current.open?.start || next?.query !== latest.current.open?.query) setActive(0);
    };
    const pick = (i: number) => {
      const { open: o, options: opts, onChange: change } = latest.current;
      const m = opts[i];
      if (!o || !m) return;
      const caret = textarea.selectionStart ?? textarea.value.length;
      const r =
        m.kind === "argus"
          ? insertArgus(textarea.value, o.start, caret)
          : insertMention(textarea.value, o.start, caret, { id: m.userId, name: m.name });
      caretAfterPick.current = r.caret;
      setOpen(null);
      change(r.text);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      const { visible: shown, options: opts, active: at } = latest.current;
      if (!shown || e.isComposing) return;
      const handled = ["ArrowDown", "ArrowUp", "Enter", "Tab", "Escape"].includes(e.key) && !e.shiftKey;
      if (!handled) return;
      e.preventDefault();
      e.stopPropagation();
      if (e.key === "ArrowDown") setActive((at + 1) % opts.length);
      else if (e.key === "ArrowUp") setActive((at - 1 + opts.length) % opts.length);
      else if (e.key === "Escape") {
        dismissed.current = latest.current.open?.start ?? null;
        setOpen(null);
      } else pick(at);
    };
    const onKeyUp = (e: KeyboardEvent) => {
      // Caret moves (←/→, Home, End) change what is being typed; the keys the list uses do not.
      if (!["ArrowDown", "ArrowUp", "Enter", "Tab", "Escape"].includes(e.key)) update();
    };
    const onBlur = () => setOpen(null);
    textarea.addEventListener("input", update);
    textarea.addEventListener("click", update);
    textarea.addEventListener("keyup", onKeyUp);
    textarea.addEventListener("keydown", onKeyDown);
    textarea.addEventListener("blur", onBlur);
    pickRef.current = pick;
    return () => {
      textarea.removeEventListener("input", update);
      textarea.removeEventListener("click", update);
      textarea.removeEventListener("keyup", onKeyUp);
      textarea.removeEventListener("keydown", onKeyDown);
      textarea.removeEventListener("blur", onBlur);
    };
  }, [textarea]);

  // After a pick the draft is new: put the caret after the inserted token.
  useLayoutEffect(() => {
    const at = caretAfterPick.current;
    if (at === null || !textarea || textarea.value !== value) return;
    caretAfterPick.current = null;
    textarea.focus();
    textarea.setSelectionRange(at, at);
  }, [value, textarea]);

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
        <ul
          id={listId}
          role="listbox"
          aria-label="Mention a member"
          className="absolute inset-x-0 top-1 z-20 max-h-64 overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {options.map((m, i) => (
            <li
              key={m.kind === "argus" ? "argus" : m.userId}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              // Keep the focus in the textarea: the click picks, the caret stays.
              onMouseDown={(e) => e.preventDefault()}
              onMouseEnter={() => setActive(i)}
              onClick={() => pickRef.current(i)}
              className={cx(
                "flex cursor-pointer items-center gap-2 px-2 py-1.5",
                i === active && "bg-brand-50 dark:bg-brand-900/40",
              )}
            >
              {m.kind === "argus" ? (
                <>
                  <Bot className="size-5 text-brand-600" aria-hidden />
                  <span className="font-medium">Argus</span>
                  <span className="truncate text-xs text-zinc-500">ask about the code; the answer streams here</span>
                </>
              ) : (
                <>
                  <Avatar id={m.userId} name={m.name} />
                  <span className="font-medium">{m.name}</span>
                  <span className="truncate text-xs text-zinc-500">{m.email}</span>
                </>
              )}
            </li>
          ))}
          <li
            role="presentation"
            className="border-t border-zinc-100 px-2 pt-1 text-[11px] text-zinc-500 dark:border-zinc-800"
          >
            ↑↓ to choose · Enter or Tab to mention · Esc to close
          </li>
        </ul>
      )}
    </div>
  );
}
