"use client";
/** A button that copies a text (an invite link, a webhook URL) and shows a tick for a moment. */
import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { Button } from "@/app/_components/ui.tsx";

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="ghost"
      aria-label={label}
      onClick={async () => {
        await navigator.clipboard?.writeText(text).catch(() => undefined);
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? <Check className="size-4" aria-hidden /> : <Copy className="size-4" aria-hidden />}
    </Button>
  );
}
