/**
 * Starting an import: the snapshot record (the project marked importing) and the "snapshot.ingest"
 * job, for a git repository (its access token bound to its origin) or a folder on the server.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Project, Snapshot } from "../db/client.ts";
import { invalid } from "../errors.ts";
import { parseGitUrl, planGitConnection, resolveImportPath, type ParsedGitUrl } from "../codebase/ingest/index.ts";
import type { importGitInput, importPathInput } from "./inputs.ts";
import type { SnapshotView } from "./snapshot-rows.ts";
import { loadProject, snapshotView, type SnapshotDeps } from "./snapshot-rows.ts";

/** The URL as people may see it: any credentials in it removed. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url; // scp-like ssh (git@host:org/repo.git) carries no secret
  }
}

/**
 * The token a git import sends, and the origin it is bound to. A token is sent only to the origin
 * (scheme://host[:port]) it was given for: a URL on another origin gets no token unless one is
 * given with it, and the stored one is then forgotten (it would never be sent anywhere again).
 * Tokens stored before origins were recorded are treated the same way: never sent, re-entered once.
 */
function tokenFor(
  { tokens }: SnapshotDeps,
  project: Project,
  parsed: ParsedGitUrl,
  given: string | undefined,
): { gitTokenCipher: string | null; gitTokenOrigin: string | null } {
  if (given) {
    if (!parsed.origin)
      throw invalid("An access token works only with an https URL; give the repository's https URL with it.");
    return { gitTokenCipher: tokens.seal(given), gitTokenOrigin: parsed.origin };
  }
  if (project.gitTokenCipher && project.gitTokenOrigin && project.gitTokenOrigin === parsed.origin)
    return { gitTokenCipher: project.gitTokenCipher, gitTokenOrigin: project.gitTokenOrigin };
  return { gitTokenCipher: null, gitTokenOrigin: null };
}

/** Creates the snapshot record and marks the project as importing (actor null: a forge's webhook). */
export async function beginImport(
  { db }: SnapshotDeps,
  project: Project,
  actor: NonNullable<Actor> | null,
  sourceKind: string,
  sourceLabel: string,
): Promise<Snapshot> {
  const snapshot = await db.snapshot.create({
    data: {
      uid: crypto.randomUUID(),
      projectId: project.id,
      sourceKind,
      sourceLabel,
      status: "ingesting",
      createdById: actor?.userId ?? null,
    },
  });
  await db.project.update({ where: { id: project.id }, data: { status: "ingesting", sourceKind } });
  return snapshot;
}

/** For the upload route: the project, after checking the actor may import into it. */
export async function projectForImport(
  { db }: SnapshotDeps,
  actor: Actor,
  projectUid: string,
): Promise<{ project: Project; actor: NonNullable<Actor> }> {
  const project = await loadProject(db, projectUid);
  await requireRole(db, actor, project.workspaceId, "member");
  return { project, actor: actor! };
}

export async function importGit(
  d: SnapshotDeps,
  actor: Actor,
  input: z.infer<typeof importGitInput>,
): Promise<SnapshotView> {
  const { db } = d;
  const project = await loadProject(db, input.projectUid);
  await requireRole(db, actor, project.workspaceId, "member");
  const parsed = parseGitUrl(input.url); // refuses file:, ext::, "-…" before anything runs
  // Internal addresses are refused now, with a clear message; the job checks again and pins the address.
  await planGitConnection(parsed, d.gitPolicy);
  const ref = input.ref || undefined;
  const token = tokenFor(d, project, parsed, input.token);
  await db.project.update({
    where: { id: project.id },
    data: { gitUrl: displayUrl(parsed.url), gitRef: ref ?? null, ...token },
  });
  const snapshot = await beginImport(
    d,
    project,
    actor!,
    "git",
    ref ? `${displayUrl(parsed.url)} @ ${ref}` : displayUrl(parsed.url),
  );
  await d.queue.enqueue("snapshot.ingest", {
    snapshotId: snapshot.id,
    source: { kind: "git", url: input.url, ref, tokenCipher: token.gitTokenCipher ?? undefined },
  });
  return snapshotView(snapshot, project.uid);
}

export async function importPath(
  d: SnapshotDeps,
  actor: Actor,
  input: z.infer<typeof importPathInput>,
): Promise<SnapshotView> {
  const project = await loadProject(d.db, input.projectUid);
  // Reading the server's own disk is for the people who run it: owners, inside the operator's roots.
  await requireRole(d.db, actor, project.workspaceId, "owner");
  const real = await resolveImportPath(input.path, d.pathPolicy);
  const snapshot = await beginImport(d, project, actor!, "path", input.path);
  await d.queue.enqueue("snapshot.ingest", {
    snapshotId: snapshot.id,
    source: { kind: "path", path: real, policy: d.pathPolicy },
  });
  return snapshotView(snapshot, project.uid);
}
