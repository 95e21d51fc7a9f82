"use client";
/** Small styled building blocks shared by every page (Tailwind on plain elements / Headless UI). */
import Link from "next/link";
import { Dialog as HDialog, DialogPanel, DialogTitle } from "@headlessui/react";
import {
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";

const cx = (...parts: (string | false | null | undefined)[]) => parts.filter(Boolean).join(" ");

type Variant = "primary" | "secondary" | "danger" | "ghost";
const variants: Record<Variant, string> = {
  primary: "bg-brand-600 text-white hover:bg-brand-700 disabled:bg-brand-600/60",
  secondary:
    "border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800",
  danger: "bg-red-600 text-white hover:bg-red-700 disabled:bg-red-600/60",
  ghost: "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
};

export function Button({
  variant = "primary",
  className,
  busy,
  children,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; busy?: boolean }) {
  return (
    <button
      type="button"
      {...props}
      disabled={props.disabled || busy}
      aria-busy={busy || undefined}
      className={cx(
        "inline-flex items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium transition-colors disabled:cursor-not-allowed disabled:opacity-70",
        variants[variant],
        className,
      )}
    >
      {busy && (
        <span className="size-3 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden />
      )}
      {children}
    </button>
  );
}

const fieldClass =
  "w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs placeholder:text-zinc-400 focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30 aria-invalid:border-red-500 dark:border-zinc-700 dark:bg-zinc-900";

export function Field({
  label,
  error,
  hint,
  children,
  htmlFor,
  name,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: ReactNode;
  htmlFor: string;
  /** The value's technical name (e.g. its key in a parameter file), shown small beside the label. */
  name?: string;
}) {
  return (
    <div className="min-w-0 space-y-1">
      <label htmlFor={htmlFor} className="block text-sm font-medium break-words">
        {label}
        {name && <code className="ml-1.5 text-xs font-normal break-all text-zinc-500 dark:text-zinc-400">{name}</code>}
      </label>
      {children}
      {error ? <FormError message={error} /> : hint ? <p className="text-xs text-zinc-500">{hint}</p> : null}
    </div>
  );
}

/** A form's footer: Cancel, then the submit button (busy while the submit runs). */
export function FormActions({
  onCancel,
  submitLabel,
  busy,
  className,
}: {
  onCancel: () => void;
  submitLabel: string;
  busy: boolean;
  className?: string;
}) {
  return (
    <div className={cx("flex justify-end gap-2", className)}>
      <Button variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" busy={busy}>
        {submitLabel}
      </Button>
    </div>
  );
}

/** A form's error sentence, announced when it appears; nothing when there is no message. */
export function FormError({ message, className }: { message: string | null | undefined; className?: string }) {
  if (!message) return null;
  return (
    <p role="alert" className={cx("text-sm text-red-600 dark:text-red-400", className)}>
      {message}
    </p>
  );
}

export function Input({ className, invalid, ...props }: InputHTMLAttributes<HTMLInputElement> & { invalid?: boolean }) {
  return <input {...props} aria-invalid={invalid || undefined} className={cx(fieldClass, className)} />;
}

export function TextArea({
  className,
  invalid,
  ...props
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { invalid?: boolean }) {
  return <textarea {...props} aria-invalid={invalid || undefined} className={cx(fieldClass, "font-mono", className)} />;
}

const selectClasses = {
  /** A form row: full width, as tall as the text fields. */
  field: "w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900",
  /** A toolbar or filter: as wide as its options. */
  compact: "rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900",
};

/** A native select styled like the other fields (native: keyboard, screen readers and mobile pickers for free). */
export function Select({
  size = "field",
  className,
  ...props
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "size"> & { size?: keyof typeof selectClasses }) {
  return <select {...props} className={cx(selectClasses[size], className)} />;
}

/** A determinate progress bar: `fraction` 0–1, announced with `label`. */
export function ProgressBar({ fraction, label, className }: { fraction: number; label: string; className?: string }) {
  const pct = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div
      className={cx("h-2 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800", className)}
      role="progressbar"
      aria-label={label}
      aria-valuenow={pct}
    >
      <div className="h-full bg-brand-600 transition-[width]" style={{ width: `${pct}%` }} />
    </div>
  );
}

export function Card({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <div className={cx("rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900", className)}>
      {children}
    </div>
  );
}

export function Badge({
  children,
  tone = "zinc",
}: {
  children: ReactNode;
  tone?: "zinc" | "brand" | "amber" | "green";
}) {
  const tones = {
    zinc: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
    brand: "bg-brand-100 text-brand-700 dark:bg-brand-700/30 dark:text-brand-100",
    amber: "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-200",
    green: "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-200",
  };
  return (
    <span className={cx("inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium", tones[tone])}>
      {children}
    </span>
  );
}

/** "← Projects" above a detail page: the way back to its list. */
export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <p className="mb-2 text-sm">
      <Link href={href} className="text-brand-600 hover:underline">
        ← {children}
      </Link>
    </p>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: string;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      <div className="min-w-0">
        <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
        {description && <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
    </div>
  );
}

export function EmptyState({
  icon,
  title,
  children,
  action,
}: {
  icon?: ReactNode;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="flex flex-col items-center justify-center rounded-lg border border-dashed border-zinc-300 px-6 py-14 text-center dark:border-zinc-700">
      {icon && <div className="mb-3 text-zinc-400">{icon}</div>}
      <h2 className="text-base font-medium">{title}</h2>
      {children && <div className="mt-1 max-w-md text-sm text-zinc-500 dark:text-zinc-400">{children}</div>}
      {action && <div className="mt-5">{action}</div>}
    </div>
  );
}

/**
 * Skeleton rows that appear only if loading takes longer than `delayMs` (fast loads never flicker).
 * The delay is CSS (globals.css `.appear-later`), not a timer: the server renders the rows into the
 * HTML, so a page whose data waits shows where it will come from the first paint on.
 */
export function DelayedSkeleton({ rows = 3, delayMs = 250 }: { rows?: number; delayMs?: number }) {
  return (
    <div
      className="appear-later space-y-3"
      style={{ animationDelay: `${delayMs}ms` }}
      aria-busy="true"
      aria-label="Loading"
    >
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="h-14 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" />
      ))}
    </div>
  );
}

/** A page still loading: its heading's place and a few rows (the shell frame's main area). */
export function PageSkeleton() {
  return (
    <div aria-busy="true" aria-label="Loading">
      <div className="mb-6 h-8 w-64 max-w-full animate-pulse rounded-md bg-zinc-200/70 dark:bg-zinc-800/60" />
      <div className="space-y-3">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="h-14 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800/60" />
        ))}
      </div>
    </div>
  );
}

export function Modal({
  open,
  onClose,
  title,
  children,
  wide,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  /** Room for an editor (max-w-3xl instead of max-w-lg). */
  wide?: boolean;
}) {
  return (
    <HDialog open={open} onClose={onClose} className="relative z-50">
      <div className="fixed inset-0 bg-black/40" aria-hidden="true" />
      <div className="fixed inset-0 flex items-center justify-center p-4">
        <DialogPanel
          className={cx(
            "max-h-full w-full overflow-y-auto rounded-lg border border-zinc-200 bg-white p-5 shadow-xl dark:border-zinc-800 dark:bg-zinc-900",
            wide ? "max-w-3xl" : "max-w-lg",
          )}
        >
          <DialogTitle className="mb-4 text-lg font-semibold">{title}</DialogTitle>
          {children}
        </DialogPanel>
      </div>
    </HDialog>
  );
}

export function ConfirmDialog({
  open,
  onClose,
  onConfirm,
  title,
  body,
  confirmLabel,
  busy,
}: {
  open: boolean;
  onClose: () => void;
  onConfirm: () => void;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  busy?: boolean;
}) {
  return (
    <Modal open={open} onClose={onClose} title={title}>
      <div className="text-sm text-zinc-600 dark:text-zinc-300">{body}</div>
      <div className="mt-6 flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button variant="danger" onClick={onConfirm} busy={busy}>
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}

export function ErrorNotice({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div
      role="alert"
      className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200"
    >
      <p>{message}</p>
      {onRetry && (
        <Button variant="secondary" className="mt-3" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

export { cx };
