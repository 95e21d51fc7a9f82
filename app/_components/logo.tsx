export function Logo({ className = "" }: { className?: string }) {
  return (
    <span className={`inline-flex items-center gap-2 font-semibold tracking-tight ${className}`}>
      <svg viewBox="0 0 32 32" className="size-6" aria-hidden>
        <rect width="32" height="32" rx="7" className="fill-brand-600" />
        <circle cx="16" cy="16" r="8" fill="none" stroke="#fff" strokeWidth="2.5" />
        <circle cx="16" cy="16" r="3" fill="#fff" />
      </svg>
      Argus
    </span>
  );
}
