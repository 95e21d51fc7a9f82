"use client";
/** The presence bar's switch for "hide my position": others see you in the room, not what you look at. */
import { Eye, EyeOff } from "lucide-react";
import { cx } from "../ui.tsx";
import { useHidePosition } from "./use-hide-position.ts";

export function HidePositionToggle() {
  const { hidden, loaded, busy, setHidden } = useHidePosition();
  const Icon = hidden ? EyeOff : Eye;
  return (
    <button
      type="button"
      aria-pressed={hidden}
      aria-label="Hide my position"
      title={
        hidden
          ? "Your position is hidden: others see you here, not what you look at (on every device). Click to show it."
          : "Others see what you look at. Click to hide it (on every device)."
      }
      disabled={!loaded || busy}
      onClick={() => setHidden(!hidden)}
      className={cx(
        "ml-2 inline-flex size-7 items-center justify-center rounded-full border focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 disabled:opacity-50",
        hidden
          ? "border-brand-500 bg-brand-50 text-brand-700 dark:bg-brand-900/40 dark:text-brand-100"
          : "border-zinc-300 text-zinc-500 hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800",
      )}
    >
      <Icon className="size-3.5" aria-hidden />
    </button>
  );
}
