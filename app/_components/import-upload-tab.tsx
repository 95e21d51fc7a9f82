"use client";
/** The import panel's Upload tab: buttons that pick a zip, files or a folder, and the upload's progress. */
import { useRef } from "react";
import type { UploadKind } from "./use-code-upload.ts";
import { Button, ProgressBar } from "./ui.tsx";

export function UploadTab({
  uploading,
  send,
}: {
  uploading: number | null;
  send: (kind: UploadKind, files: FileList | null) => Promise<void>;
}) {
  const zipInput = useRef<HTMLInputElement>(null);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  return (
    <div className="space-y-3">
      <p className="text-sm text-zinc-500">
        Vendored dependencies, build output, lockfiles, .env files and binaries are left out automatically.
      </p>
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" disabled={uploading !== null} onClick={() => zipInput.current?.click()}>
          Zip archive…
        </Button>
        <Button variant="secondary" disabled={uploading !== null} onClick={() => filesInput.current?.click()}>
          Files…
        </Button>
        <Button variant="secondary" disabled={uploading !== null} onClick={() => folderInput.current?.click()}>
          Folder…
        </Button>
      </div>
      <input
        ref={zipInput}
        type="file"
        accept=".zip,application/zip"
        hidden
        aria-label="Zip archive"
        onChange={(e) => void send("zip", e.target.files)}
      />
      <input
        ref={filesInput}
        type="file"
        multiple
        hidden
        aria-label="Files"
        onChange={(e) => void send("files", e.target.files)}
      />
      <input
        ref={folderInput}
        type="file"
        hidden
        aria-label="Folder"
        {...{ webkitdirectory: "", directory: "" }}
        onChange={(e) => void send("folder", e.target.files)}
      />
      {uploading !== null && (
        <div>
          <ProgressBar fraction={uploading} label="Upload" />
          <p className="mt-1 text-xs text-zinc-500">Uploading… {Math.round(uploading * 100)}%</p>
        </div>
      )}
    </div>
  );
}
