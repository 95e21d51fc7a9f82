"use client";
/** Uploading code into a project (a zip, files or a folder) with its progress; the new snapshot goes to onStarted. */
import { useState } from "react";
import { toast } from "sonner";
import { uploadWithProgress } from "@/app/_lib/upload.ts";

export type UploadKind = "zip" | "files" | "folder";

/** The import route's reply: 201 with the new snapshot, else a message. */
async function uploadCode(
  url: string,
  body: Blob | FormData,
  headers: Record<string, string>,
  onProgress: (fraction: number) => void,
): Promise<{ snapshotUid: string }> {
  const { status, body: reply } = await uploadWithProgress<{ snapshotUid?: string; message?: string }>(
    url,
    body,
    headers,
    onProgress,
  );
  if (status === 201 && reply.snapshotUid) return { snapshotUid: reply.snapshotUid };
  throw new Error(reply.message ?? `Upload failed (${status}).`);
}

/** `uploading`: the fraction sent so far, null while no upload runs; `send` uploads the files picked. */
export function useCodeUpload(projectUid: string, onStarted: (snapshotUid: string) => void) {
  const [uploading, setUploading] = useState<number | null>(null);

  async function send(kind: UploadKind, files: FileList | null) {
    if (!files || files.length === 0) return;
    const url = `/api/projects/${projectUid}/upload?kind=${kind}`;
    let body: Blob | FormData;
    const headers: Record<string, string> = {};
    if (kind === "zip") {
      body = files[0]!;
      headers["x-file-name"] = encodeURIComponent(files[0]!.name);
    } else {
      const form = new FormData();
      for (const f of Array.from(files)) form.append("file", f, f.webkitRelativePath || f.name);
      body = form;
    }
    setUploading(0);
    try {
      const { snapshotUid } = await uploadCode(url, body, headers, setUploading);
      onStarted(snapshotUid);
    } catch (err) {
      toast.error((err as Error).message);
    } finally {
      setUploading(null);
    }
  }

  return { uploading, send };
}
