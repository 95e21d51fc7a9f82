"use client";
/** The import panel's two forms: clone a git repository, and (owners) import a folder on the server. */
import type { FormEvent, ReactNode } from "react";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { Button, Field, Input } from "./ui.tsx";

/** What both forms take besides their values: the mutation's error, whether it runs, and submit. */
interface ImportFormProps {
  /** The mutation's error, if any. */
  error: unknown;
  busy: boolean;
  onSubmit: () => void;
}

/** A mutation error's message for one field: the field's own, else a message not about any field. */
function fieldError(error: unknown, field: string): string | undefined {
  const info = error ? errorInfo(error) : null;
  return info?.fields?.[field]?.[0] ?? (info && !info.fields ? info.message : undefined);
}

function ImportForm({
  busy,
  onSubmit,
  submit,
  children,
}: Omit<ImportFormProps, "error"> & { submit: string; children: ReactNode }) {
  return (
    <form
      className="space-y-3"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <Button type="submit" busy={busy}>
        {submit}
      </Button>
    </form>
  );
}

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
}: ImportFormProps & {
  git: GitSource;
  setGit: (next: GitSource) => void;
}) {
  return (
    <ImportForm busy={busy} onSubmit={onSubmit} submit="Clone and index">
      <Field
        label="Repository URL"
        htmlFor="git-url"
        error={fieldError(error, "url")}
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
    </ImportForm>
  );
}

export function ServerPathImportForm({
  serverPath,
  setServerPath,
  error,
  busy,
  onSubmit,
}: ImportFormProps & {
  serverPath: string;
  setServerPath: (next: string) => void;
}) {
  return (
    <ImportForm busy={busy} onSubmit={onSubmit} submit="Import folder">
      <Field
        label="Folder on the server"
        htmlFor="server-path"
        error={fieldError(error, "path")}
        hint="An absolute path inside a folder the operator allows for import (IMPORT_PATH_ROOTS)."
      >
        <Input
          id="server-path"
          value={serverPath}
          onChange={(e) => setServerPath(e.target.value)}
          placeholder="/srv/code/my-service"
        />
      </Field>
    </ImportForm>
  );
}
