"use client";
/**
 * One repository (GitHub) or project (GitLab) of a forge connection in Settings → Integrations: which
 * of its pull/merge requests Argus reviews and the severity that fails its check or status. Owners
 * change them (forges.setRepoMode); members see them.
 */
import { useMutation } from "@tanstack/react-query";
import { toast } from "sonner";
import { Badge, Select } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

const FAIL_ON = ["critical", "high", "medium", "low", "info"] as const;
type Mode = "auto" | "on_request" | "off";
type FailOn = (typeof FAIL_ON)[number] | null;

/** The mode's words on each forge: GitHub has pull requests, GitLab merge requests. */
function modeLabels(noun: string): [Mode, string][] {
  return [
    ["auto", `Every ${noun}`],
    ["on_request", "On request (@argus review)"],
    ["off", "Off"],
  ];
}

export interface ForgeRepo {
  fullName: string;
  projectUid: string;
  mode: string;
  failOn: string | null;
}

export function RepoSettings({
  repo,
  noun,
  readOnly,
  onSaved,
}: {
  repo: ForgeRepo;
  /** "pull request" or "merge request". */
  noun: string;
  readOnly?: boolean;
  onSaved: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const set = useMutation(
    trpc.forges.setRepoMode.mutationOptions({
      onSuccess: async () => {
        await onSaved();
        toast.success(`${repo.fullName}: saved.`);
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const modes = modeLabels(noun);
  const mode = repo.mode as Mode;
  const failOn = (repo.failOn ?? null) as FailOn;
  if (readOnly)
    return (
      <li className="flex flex-wrap items-center gap-2 py-2" data-testid="forge-repo">
        <code className="min-w-0 flex-1 truncate text-sm">{repo.fullName}</code>
        <Badge>{modes.find(([value]) => value === mode)?.[1] ?? mode}</Badge>
        <Badge>{failOn ? `Fails at ${failOn} or worse` : "Never fails"}</Badge>
      </li>
    );
  return (
    <li className="flex flex-wrap items-center gap-2 py-2" data-testid="forge-repo">
      <code className="min-w-0 flex-1 truncate text-sm">{repo.fullName}</code>
      <Select
        size="compact"
        aria-label={`Review mode of ${repo.fullName}`}
        value={mode}
        onChange={(e) => set.mutate({ projectUid: repo.projectUid, mode: e.target.value as Mode, failOn })}
      >
        {modes.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </Select>
      <Select
        size="compact"
        aria-label={`Fail the check of ${repo.fullName} at`}
        value={failOn ?? ""}
        onChange={(e) => set.mutate({ projectUid: repo.projectUid, mode, failOn: (e.target.value || null) as FailOn })}
      >
        <option value="">Check never fails</option>
        {FAIL_ON.map((s) => (
          <option key={s} value={s}>
            Fails at {s} or worse
          </option>
        ))}
      </Select>
    </li>
  );
}
