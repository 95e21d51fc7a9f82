"use client";
/** The import panel's two forms: clone a git repository, and (owners) import a folder on the server. */
import type { FormEvent } from "react";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { Button, Field, Input } from "./ui.tsx";

export interface GitSource {
  url: string;
  ref: string;
  token: string;
}

export function GitImportForm({
  git,
  setGit,
  error,
  busy,
  onSubmit,
}: {
  git: GitSource;
  setGit: (next: GitSource) => void;
  /** The clone mutation's error, if any. */
  error: unknown;
  busy: boolean;
  onSubmit: () => void;
}) {
  const gitErr = error ? errorInfo(error) : null;
  return (
    <form
      className="space-y-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
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
      <Button type="submit" busy={busy}>
        Clone and index
      </Button>
    </form>
  );
}

export function ServerPathImportForm({
  serverPath,
  setServerPath,
  error,
  busy,
  onSubmit,
}: {
  serverPath: string;
  setServerPath: (next: string) => void;
  /** The import mutation's error, if any. */
  error: unknown;
  busy: boolean;
  onSubmit: () => void;
}) {
  const pathErr = error ? errorInfo(error) : null;
  return (
    <form
      className="space-y-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
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
      <Button type="submit" busy={busy}>
        Import folder
      </Button>
    </form>
  );
}
