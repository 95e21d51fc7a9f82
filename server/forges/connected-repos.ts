/**
 * A workspace's forge connections with their repositories, as Settings → Integrations lists them: one
 * read for GitHub installations (integrations.ts) and GitLab connections (gitlab/connection.ts).
 */
import type { Db } from "../db/client.ts";

/** A connected repository: its Argus project, when it is reviewed, and the severity that fails its check. */
export interface ConnectedRepoView {
  fullName: string;
  projectUid: string;
  mode: string;
  failOn: string | null;
}

/** The workspace's connections to `forge`, oldest first, each with its repositories by name. */
export async function connectionsWithRepos(db: Db, workspaceId: string, forge: "github" | "gitlab") {
  const rows = await db.forgeInstallation.findMany({
    where: { workspaceId, forge },
    include: { repos: { include: { project: { select: { uid: true } } }, orderBy: { fullName: "asc" } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(({ repos, ...row }) => ({
    ...row,
    repos: repos.map((repo): ConnectedRepoView => ({
      fullName: repo.fullName,
      projectUid: repo.project.uid,
      mode: repo.mode,
      failOn: repo.failOn,
    })),
  }));
}
