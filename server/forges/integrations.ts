/**
 * What owners see and set in Settings → Integrations — the installations connected to their
 * workspace, each repository's mode and failing severity — and the PR a review's room shows, with
 * each finding it posted there. Never a token or a key.
 */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { severitySchema } from "../shared/findings.ts";
import { connectionsWithRepos, type ConnectedRepoView } from "./connected-repos.ts";

export const connectInstallationInput = z.object({
  workspaceId: z.string().min(1),
  forge: z.literal("github"),
  installationId: z.coerce
    .number({ error: "The installation id is a number (GitHub → the App → Install → the URL's last part)." })
    .int()
    .positive(),
});

export const disconnectInstallationInput = connectInstallationInput;
export const repoModeInput = z.object({
  projectUid: z.uuid(),
  mode: z.enum(["auto", "on_request", "off"]),
  /** The severity that fails the Argus check (`.argus.yaml` fail_on wins); null: never; omitted: unchanged. */
  failOn: severitySchema.nullable().optional(),
});

/** What Settings → Integrations shows: never a token or key (the App's live in the environment). */
export interface InstallationView {
  forge: "github";
  installationId: number;
  account: string | null;
  createdAt: Date;
  repos: ConnectedRepoView[];
}

/** A review's pull request, for its room page. */
export interface PullView {
  repo: string;
  number: number;
  title: string;
  url: string;
  headRef: string;
  headSha: string;
  state: string;
  /** This review's findings posted inline on the PR, each with its comment's link. */
  findings: { fingerprint: string; path: string; line: number; url: string }[];
}

export function createIntegrations(db: Db) {
  return {
    async installations(actor: Actor, workspaceId: string): Promise<InstallationView[]> {
      await requireRole(db, actor, workspaceId, "owner");
      // GitHub installations (a GitLab connection has no installation id: gitlabConnections lists them).
      const rows = await connectionsWithRepos(db, workspaceId, "github");
      return rows.map((r) => ({
        forge: "github",
        installationId: Number(r.externalId),
        account: r.account,
        createdAt: r.createdAt,
        repos: r.repos,
      }));
    },

    async disconnectInstallation(actor: Actor, input: z.infer<typeof disconnectInstallationInput>): Promise<void> {
      await requireRole(db, actor, input.workspaceId, "owner");
      const { count } = await db.forgeInstallation.deleteMany({
        where: { workspaceId: input.workspaceId, forge: input.forge, externalId: String(input.installationId) },
      });
      if (!count) throw notFound(`Installation ${input.installationId} is not connected to this workspace.`);
    },

    /** Which pull requests of a linked repository are reviewed: every one, on request, or none. */
    async setRepoMode(actor: Actor, input: z.infer<typeof repoModeInput>): Promise<void> {
      const project = await db.project.findUnique({ where: { uid: input.projectUid }, include: { forgeRepo: true } });
      if (!project) throw notFound(`No project with id ${input.projectUid}. It may have been deleted.`);
      await requireRole(db, actor, project.workspaceId, "owner");
      if (!project.forgeRepo) throw invalid("That project is not linked to a repository on a forge.");
      await db.forgeRepo.update({
        where: { id: project.forgeRepo.id },
        data: { mode: input.mode, ...(input.failOn !== undefined ? { failOn: input.failOn } : {}) },
      });
    },

    /** The pull request a review was started for (its room shows the PR), or null. */
    async pullOfReview(actor: Actor, reviewUid: string): Promise<PullView | null> {
      const review = await db.review.findUnique({ where: { uid: reviewUid }, select: { workspaceId: true } });
      if (!review) throw notFound(`No review with id ${reviewUid}. It may have been deleted.`);
      await requireRole(db, actor, review.workspaceId, "viewer");
      const posted = await db.forgeComment.findFirst({ where: { reviewUid }, select: { pullId: true } });
      const pull = await db.forgePull.findFirst({
        where: posted ? { id: posted.pullId } : { lastReviewUid: reviewUid },
        include: {
          repo: { include: { installation: { select: { forge: true } } } },
          comments: { where: { reviewUid }, orderBy: [{ path: "asc" }, { line: "asc" }] },
        },
      });
      if (!pull) return null;
      return {
        repo: pull.repo.fullName,
        number: pull.number,
        title: pull.title,
        url: pull.url,
        headRef: pull.headRef,
        headSha: pull.headSha,
        state: pull.state,
        findings: pull.comments.map((c) => ({
          fingerprint: c.fingerprint,
          path: c.path,
          line: c.line,
          // GitHub anchors a review comment by its id; GitLab's discussion ids are not URL anchors, so
          // a GitLab finding opens the MR's changes, where its discussion sits on its line.
          url:
            pull.repo.installation.forge === "gitlab" ? `${pull.url}/diffs` : `${pull.url}#discussion_r${c.commentId}`,
        })),
      };
    },

    /** An owner connects a GitHub App installation to their workspace (its deliveries are then taken). */
    async connectInstallation(actor: Actor, input: z.infer<typeof connectInstallationInput>) {
      await requireRole(db, actor, input.workspaceId, "owner");
      try {
        const row = await db.forgeInstallation.create({
          data: { workspaceId: input.workspaceId, forge: input.forge, externalId: String(input.installationId) },
        });
        return { forge: row.forge, installationId: Number(row.externalId), createdAt: row.createdAt };
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict(`Installation ${input.installationId} is already connected to a workspace of this Argus.`);
        throw err;
      }
    },
  };
}
