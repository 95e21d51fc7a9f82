"use client";
/** Drop documents here (or choose them): uploaded with a progress bar; what was refused is said per file. */
import { Upload } from "lucide-react";
import { useRef, useState, type DragEvent } from "react";
import { toast } from "sonner";
import { Button, cx } from "@/app/_components/ui.tsx";

const ACCEPT = ".txt,.text,.md,.markdown,.mdx,.html,.htm,.xhtml,.pdf,.docx";

interface UploadReply {
  message?: string;
  documents?: { name: string; status: string; message: string | null }[];
  rejected?: { name: string; message: string }[];
}

function post(url: string, form: FormData, onProgress: (fraction: number) => void): Promise<{ status: number; body: UploadReply }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: UploadReply = {};
      try {
        body = JSON.parse(xhr.responseText || "{}") as UploadReply;
      } catch {
        body = { message: `Upload failed (${xhr.status}).` };
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new Error("The upload was interrupted. Check the connection and try again."));
    xhr.send(form);
  });
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
      const { status, body } = await post(`/api/knowledge/${baseUid}/upload`, form, setProgress);
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
      <input ref={input} type="file" multiple accept={ACCEPT} hidden aria-label="Documents to upload" onChange={(e) => void send(Array.from(e.target.files ?? []))} />
      {progress !== null && (
        <div className="mx-auto mt-3 max-w-sm">
          <div className="h-2 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800" role="progressbar" aria-label="Upload" aria-valuenow={pct}>
            <div className="h-full bg-brand-600 transition-[width]" style={{ width: `${pct}%` }} />
          </div>
          <p className="mt-1 text-xs text-zinc-500">Uploading… {pct}%</p>
        </div>
      )}
    </div>
  );
}
