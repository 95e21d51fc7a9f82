"use client";
/** Import code into a project: upload a zip, files or a folder (with upload progress), a git URL, or (owners) a server path. */
import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { uploadWithProgress } from "@/app/_lib/upload.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { Button, Card, Field, Input, ProgressBar, cx } from "./ui.tsx";

type Tab = "upload" | "git" | "path";

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

export function ImportPanel({
  projectUid,
  onStarted,
}: {
  projectUid: string;
  onStarted: (snapshotUid: string) => void;
}) {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const [tab, setTab] = useState<Tab>("upload");
  const [uploading, setUploading] = useState<number | null>(null);
  const [git, setGit] = useState({ url: "", ref: "", token: "" });
  const [serverPath, setServerPath] = useState("");
  const zipInput = useRef<HTMLInputElement>(null);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const importGit = useMutation(trpc.snapshots.importGit.mutationOptions({ onSuccess: (s) => onStarted(s.uid) }));
  const importPath = useMutation(trpc.snapshots.importPath.mutationOptions({ onSuccess: (s) => onStarted(s.uid) }));

  async function send(kind: "zip" | "files" | "folder", files: FileList | null) {
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

  const tabs: [Tab, string][] = [
    ["upload", "Upload"],
    ["git", "Git repository"],
    ...(workspace.role === "owner" ? ([["path", "Server folder"]] as [Tab, string][]) : []),
  ];
  const gitErr = importGit.error ? errorInfo(importGit.error) : null;
  const pathErr = importPath.error ? errorInfo(importPath.error) : null;

  return (
    <Card className="p-5">
      <h2 className="font-medium">Import code</h2>
      <div
        role="tablist"
        aria-label="Import from"
        className="mt-3 flex gap-1 border-b border-zinc-200 dark:border-zinc-800"
      >
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            onClick={() => setTab(id)}
            className={cx(
              "-mb-px border-b-2 px-3 py-1.5 text-sm",
              tab === id
                ? "border-brand-600 font-medium"
                : "border-transparent text-zinc-500 hover:text-zinc-800 dark:hover:text-zinc-200",
            )}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="pt-4">
        {tab === "upload" && (
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
        )}
        {tab === "git" && (
          <form
            className="space-y-3"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              importGit.mutate({ projectUid, url: git.url, ref: git.ref || undefined, token: git.token || undefined });
            }}
          >
            <Field
              label="Repository URL"
              htmlFor="git-url"
              error={gitErr?.fields?.url?.[0] ?? (gitErr && !gitErr.fields ? gitErr.message : undefined)}
              hint="https://, ssh:// (or git@host:org/repo.git) and git:// URLs of hosts on the internet (others only if the operator allows them)."
            >
              <Input
                id="git-url"
                value={git.url}
                onChange={(e) => setGit({ ...git, url: e.target.value })}
                placeholder="https://github.com/org/repo.git"
              />
            </Field>
            <Field label="Branch, tag or commit" htmlFor="git-ref" hint="Empty: the default branch.">
              <Input
                id="git-ref"
                value={git.ref}
                onChange={(e) => setGit({ ...git, ref: e.target.value })}
                placeholder="main"
              />
            </Field>
            <Field
              label="Access token (private repositories)"
              htmlFor="git-token"
              hint="Stored encrypted for refreshes and sent only to this URL's host; a URL on another host needs its own token. Never shown again."
            >
              <Input
                id="git-token"
                type="password"
                autoComplete="off"
                value={git.token}
                onChange={(e) => setGit({ ...git, token: e.target.value })}
              />
            </Field>
            <Button type="submit" busy={importGit.isPending}>
              Clone and index
            </Button>
          </form>
        )}
        {tab === "path" && (
          <form
            className="space-y-3"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              importPath.mutate({ projectUid, path: serverPath });
            }}
          >
            <Field
              label="Folder on the server"
              htmlFor="server-path"
              error={pathErr?.fields?.path?.[0] ?? (pathErr && !pathErr.fields ? pathErr.message : undefined)}
              hint="An absolute path inside a folder the operator allows for import (IMPORT_PATH_ROOTS)."
            >
              <Input
                id="server-path"
                value={serverPath}
                onChange={(e) => setServerPath(e.target.value)}
                placeholder="/srv/code/my-service"
              />
            </Field>
            <Button type="submit" busy={importPath.isPending}>
              Import folder
            </Button>
          </form>
        )}
      </div>
    </Card>
  );
}
