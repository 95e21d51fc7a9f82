"use client";
/** Drop documents here (or choose them): uploaded with a progress bar; what was refused is said per file. */
import { Upload } from "lucide-react";
import { useRef, useState, type DragEvent } from "react";
import { toast } from "sonner";
import { Button, ProgressBar, cx } from "@/app/_components/ui.tsx";
import { uploadWithProgress } from "@/app/_lib/upload.ts";

const ACCEPT = ".txt,.text,.md,.markdown,.mdx,.html,.htm,.xhtml,.pdf,.docx";

interface UploadReply {
  message?: string;
  documents?: { name: string; status: string; message: string | null }[];
  rejected?: { name: string; message: string }[];
}

export function UploadZone({ baseUid, onUploaded }: { baseUid: string; onUploaded: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [over, setOver] = useState(false);

  async function send(files: File[]) {
    if (files.length === 0 || progress !== null) return;
    const form = new FormData();
    for (const f of files) form.append("file", f, f.name);
    setProgress(0);
    try {
      const { status, body } = await uploadWithProgress<UploadReply>(
        `/api/knowledge/${baseUid}/upload`,
        form,
        {},
        setProgress,
      );
      if (status === 201) {
        const added = body.documents ?? [];
        const skipped = added.filter((d) => d.status === "skipped");
        const queued = added.length - skipped.length;
        if (queued) toast.success(`${queued} ${queued === 1 ? "document" : "documents"} added; indexing…`);
        for (const d of skipped) toast.warning(d.message ?? `${d.name} was skipped.`);
      } else toast.error(body.message ?? `Upload failed (${status}).`);
      for (const r of status === 201 ? (body.rejected ?? []) : []) toast.warning(r.message);
      onUploaded();
    } catch (err) {
      toast.error((err as Error).message);
    } finally {
      setProgress(null);
      if (input.current) input.current.value = "";
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void send(Array.from(e.dataTransfer.files));
  };

  const pct = Math.round((progress ?? 0) * 100);
  return (
    <div
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      className={cx(
        "rounded-lg border-2 border-dashed px-4 py-6 text-center transition-colors",
        over ? "border-brand-500 bg-brand-50 dark:bg-brand-700/10" : "border-zinc-300 dark:border-zinc-700",
      )}
    >
      <Upload className="mx-auto mb-2 size-6 text-zinc-400" aria-hidden />
      <p className="text-sm">Drop documents here, or</p>
      <Button variant="secondary" className="mt-2" disabled={progress !== null} onClick={() => input.current?.click()}>
        Choose files…
      </Button>
      <p className="mt-2 text-xs text-zinc-500">.txt, .md, .html, .pdf and .docx · up to 50 MB each, 100 per upload</p>
      <input
        ref={input}
        type="file"
        multiple
        accept={ACCEPT}
        hidden
        aria-label="Documents to upload"
        onChange={(e) => void send(Array.from(e.target.files ?? []))}
      />
      {progress !== null && (
        <div className="mx-auto mt-3 max-w-sm">
          <ProgressBar fraction={pct / 100} label="Upload" />
          <p className="mt-1 text-xs text-zinc-500">Uploading… {pct}%</p>
        </div>
      )}
    </div>
  );
}
