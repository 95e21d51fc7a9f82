"use client";
/** A person's initials in a coloured circle (the colour follows the user id, so it is stable). */
import { cx } from "../ui.tsx";

const COLORS = ["bg-sky-600", "bg-emerald-600", "bg-amber-600", "bg-rose-600", "bg-violet-600", "bg-teal-600"];

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0]![0], parts[parts.length - 1]![0]] : [parts[0]?.[0], parts[0]?.[1]];
  return letters.filter(Boolean).join("").toUpperCase() || "?";
}

function colorOf(id: string): string {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return COLORS[h % COLORS.length]!;
}

export function Avatar({
  id,
  name,
  className,
  title,
}: {
  id: string;
  name: string;
  className?: string;
  title?: string;
}) {
  return (
    <span
      className={cx(
        "inline-flex size-7 shrink-0 items-center justify-center rounded-full text-[11px] font-semibold text-white",
        colorOf(id),
        className,
      )}
      title={title ?? name}
      aria-label={title ?? name}
      role="img"
    >
      {initials(name)}
    </span>
  );
}
