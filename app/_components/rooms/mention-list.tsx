"use client";
/** The @mention listbox under a composer: Argus (where asking is possible) and the matching members, one active. */
import { Bot } from "lucide-react";
import { cx } from "../ui.tsx";
import { Avatar } from "./avatar.tsx";

/** An entry of the list: Argus, or a member. */
export type MentionOption = { kind: "argus" } | { kind: "member"; userId: string; name: string; email: string };

export function MentionList({
  listId,
  options,
  active,
  setActive,
  onPick,
}: {
  listId: string;
  options: MentionOption[];
  active: number;
  setActive: (i: number) => void;
  onPick: (i: number) => void;
}) {
  return (
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
          onClick={() => onPick(i)}
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
  );
}
