"use client";
/**
 * Reactions under a chat message: one chip per emoji with its count and who reacted (your own
 * pressed), a click toggles yours; and the picker of the fixed set, a menu driven by keyboard too
 * (arrow keys move, Enter picks, Escape closes and gives focus back).
 */
import { SmilePlus } from "lucide-react";
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { type Reaction, type ReactionEmoji, reactionName, REACTIONS } from "@/server/shared/room-reactions.ts";
import { cx } from "../ui.tsx";

function whoReacted(r: Reaction, selfId: string | null): string {
  const names = r.users.map((u) => (u.id === selfId ? "you" : u.name));
  return names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more` : names.join(", ");
}

export function ReactionChips({
  reactions,
  selfId,
  onToggle,
}: {
  reactions: Reaction[];
  /** null: a spectator (share link), who reacts to nothing. */
  selfId: string | null;
  /** Absent: the chips only show (a spectator). */
  onToggle?: (emoji: ReactionEmoji) => void;
}) {
  if (!reactions.length) return null;
  return (
    <ul className="mt-1 flex flex-wrap gap-1" aria-label="Reactions">
      {reactions.map((r) => {
        const mine = r.users.some((u) => u.id === selfId);
        const who = whoReacted(r, selfId);
        return (
          <li key={r.emoji}>
            <button
              type="button"
              aria-pressed={mine}
              aria-label={`${reactionName(r.emoji)}: ${r.users.length}, by ${who}`}
              title={`${reactionName(r.emoji)} — ${who}`}
              disabled={!onToggle}
              onClick={() => onToggle?.(r.emoji)}
              className={cx(
                "inline-flex items-center gap-1 rounded-full border px-1.5 py-0.5 text-xs focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500",
                mine
                  ? "border-brand-500 bg-brand-50 text-brand-800 dark:bg-brand-900/40 dark:text-brand-100"
                  : "border-zinc-200 bg-white text-zinc-700 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200",
              )}
            >
              <span aria-hidden>{r.emoji}</span>
              <span aria-hidden className="tabular-nums">
                {r.users.length}
              </span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

export function ReactionPicker({ onPick, disabled }: { onPick: (emoji: ReactionEmoji) => void; disabled?: boolean }) {
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>("button")?.focus();
    // A click anywhere else closes it.
    const onDown = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !trigger.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const close = () => {
    setOpen(false);
    trigger.current?.focus();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const move = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (move) {
      e.preventDefault();
      items[(at + move + items.length) % items.length]?.focus();
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      items[e.key === "Home" ? 0 : items.length - 1]?.focus();
    } else if (e.key === "Escape") {
      e.preventDefault();
      close();
    } else if (e.key === "Tab") setOpen(false);
  };

  return (
    <span className="relative">
      <button
        ref={trigger}
        type="button"
        aria-label="Add reaction"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
        className="rounded focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 disabled:opacity-50"
      >
        <SmilePlus className="size-3.5 text-zinc-500" aria-hidden />
      </button>
      {open && (
        <div
          ref={menu}
          role="menu"
          aria-label="Reactions to choose from"
          onKeyDown={onKeyDown}
          className="absolute right-0 top-5 z-20 flex gap-0.5 rounded-lg border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {REACTIONS.map((r) => (
            <button
              key={r.emoji}
              type="button"
              role="menuitem"
              aria-label={r.name}
              title={r.name}
              onClick={() => {
                onPick(r.emoji);
                close();
              }}
              className="rounded px-1 py-0.5 text-base hover:bg-zinc-100 focus:bg-zinc-100 focus:outline-none dark:hover:bg-zinc-800 dark:focus:bg-zinc-800"
            >
              {r.emoji}
            </button>
          ))}
        </div>
      )}
    </span>
  );
}
