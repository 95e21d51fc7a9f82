"use client";
/** Import code into a project: upload a zip, files or a folder (with upload progress), a git URL, or (owners) a server path. */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { UploadTab } from "./import-upload-tab.tsx";
import { GitImportForm, ServerPathImportForm, type GitSource } from "./import-source-forms.tsx";
import { useCodeUpload } from "./use-code-upload.ts";
import { Card, cx } from "./ui.tsx";

type Tab = "upload" | "git" | "path";

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
  const { uploading, send } = useCodeUpload(projectUid, onStarted);
  const [git, setGit] = useState<GitSource>({ url: "", ref: "", token: "" });
  const [serverPath, setServerPath] = useState("");
  const importGit = useMutation(trpc.snapshots.importGit.mutationOptions({ onSuccess: (s) => onStarted(s.uid) }));
  const importPath = useMutation(trpc.snapshots.importPath.mutationOptions({ onSuccess: (s) => onStarted(s.uid) }));

  const tabs: [Tab, string][] = [
    ["upload", "Upload"],
    ["git", "Git repository"],
    ...(workspace.role === "owner" ? ([["path", "Server folder"]] as [Tab, string][]) : []),
  ];

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
        {tab === "upload" && <UploadTab uploading={uploading} send={send} />}
        {tab === "git" && (
          <GitImportForm
            git={git}
            setGit={setGit}
            error={importGit.error}
            busy={importGit.isPending}
            onSubmit={() =>
              importGit.mutate({ projectUid, url: git.url, ref: git.ref || undefined, token: git.token || undefined })
            }
          />
        )}
        {tab === "path" && (
          <ServerPathImportForm
            serverPath={serverPath}
            setServerPath={setServerPath}
            error={importPath.error}
            busy={importPath.isPending}
            onSubmit={() => importPath.mutate({ projectUid, path: serverPath })}
          />
        )}
      </div>
    </Card>
  );
}
