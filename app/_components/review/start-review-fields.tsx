"use client";
/** The start-review form's building blocks: a titled section and a group of radio buttons. */
import type { ReactNode } from "react";

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="space-y-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <legend className="pr-2 text-xs font-semibold uppercase tracking-wide text-zinc-500">{title}</legend>
      {children}
    </fieldset>
  );
}

/** Radio buttons, one per option, announced as `label`. */
export function RadioGroup<V extends string>({
  name,
  label,
  value,
  onChange,
  options,
}: {
  name: string;
  label: string;
  value: V;
  onChange: (value: V) => void;
  options: { value: V; label: string; hint?: string }[];
}) {
  return (
    <div role="radiogroup" aria-label={label} className="space-y-2">
      {options.map((o) => (
        <label key={o.value} className="flex cursor-pointer items-start gap-2 text-sm">
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={value === o.value}
            onChange={() => onChange(o.value)}
            className="mt-0.5 accent-brand-600"
          />
          <span>
            {o.label}
            {o.hint && <span className="block text-xs text-zinc-500">{o.hint}</span>}
          </span>
        </label>
      ))}
    </div>
  );
}
