"use client";
import { Monitor, Moon, Sun } from "lucide-react";
import { useTheme } from "next-themes";
import { useEffect, useState } from "react";
import { cx } from "./ui.tsx";

const options = [
  { value: "light", label: "Light", Icon: Sun },
  { value: "dark", label: "Dark", Icon: Moon },
  { value: "system", label: "System", Icon: Monitor },
] as const;

/** Light / dark / system switch (a radio group: arrow keys work). */
export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  const [mounted, setMounted] = useState(false);
  useEffect(() => {
    setMounted(true);
  }, []);
  return (
    <div
      role="radiogroup"
      aria-label="Theme"
      className="flex rounded-md border border-zinc-200 p-0.5 dark:border-zinc-800"
    >
      {options.map(({ value, label, Icon }) => {
        const active = mounted && theme === value;
        return (
          <button
            key={value}
            type="button"
            role="radio"
            aria-checked={active}
            aria-label={label}
            title={label}
            onClick={() => setTheme(value)}
            className={cx(
              "flex-1 rounded p-1.5",
              active ? "bg-zinc-200 dark:bg-zinc-700" : "text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800",
            )}
          >
            <Icon className="mx-auto size-4" aria-hidden />
          </button>
        );
      })}
    </div>
  );
}
