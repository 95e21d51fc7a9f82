/** Project records. Ingest (sources, snapshots, status changes) arrives with the codebase layer. */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Db, Project } from "../db/client.ts";
import { insertWithClientUid } from "../db/client-uid.ts";
import { conflict, notFound } from "../errors.ts";
import { projectRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";
import { ACTIVE_REVIEW_STATUSES } from "../shared/statuses.ts";

export const projectName = z
  .string()
  .trim()
  .min(1, "Give the project a name.")
  .max(120, "Keep the name under 120 characters.");

export const createProjectInput = z.object({
  workspaceId: z.string().min(1),
  uid: z.uuid("uid must be a UUID"),
  name: projectName,
});
export const renameProjectInput = z.object({ uid: z.uuid(), name: projectName });

/** What the API shows of a project: never internal ids, never the sealed git token. */
export type ProjectView = Omit<Project, "id" | "gitTokenCipher" | "currentSnapshotId"> & { hasGitToken: boolean };

function view(p: Project): ProjectView {
  const { id: _id, gitTokenCipher, currentSnapshotId: _current, ...rest } = p;
  return { ...rest, hasGitToken: gitTokenCipher !== null };
}

export interface ProjectServiceDeps {
  /** Removes a deleted project's files and search indexes (snapshots' storage lives elsewhere). */
  dropStorage(projectId: string, snapshotIds: string[]): Promise<void>;
  /** Deletes the rooms of the project and of its reviews. */
  dropRooms(rooms: RoomName[]): Promise<void>;
}

export function createProjectService(db: Db, deps: ProjectServiceDeps) {
  async function load(uid: string): Promise<Project> {
    const project = await db.project.findUnique({ where: { uid } });
    if (!project) throw notFound(`No project with id ${uid}. It may have been deleted.`);
    return project;
  }

  async function loadFor(actor: Actor, uid: string, role: "viewer" | "member"): Promise<Project> {
    const project = await load(uid);
    await requireRole(db, actor, project.workspaceId, role);
    return project;
  }

  return {
    async list(actor: Actor, workspaceId: string): Promise<ProjectView[]> {
      await requireRole(db, actor, workspaceId, "viewer");
      const rows = await db.project.findMany({
        where: { workspaceId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
      return rows.map(view);
    },

    async get(actor: Actor, uid: string): Promise<ProjectView> {
      return view(await loadFor(actor, uid, "viewer"));
    },

    async create(actor: Actor, input: z.infer<typeof createProjectInput>): Promise<ProjectView> {
      await requireRole(db, actor, input.workspaceId, "member");
      const created = await insertWithClientUid("project", () =>
        db.project.create({ data: { uid: input.uid, workspaceId: input.workspaceId, name: input.name } }),
      );
      return view(created);
    },

    async rename(actor: Actor, input: z.infer<typeof renameProjectInput>): Promise<ProjectView> {
      const project = await loadFor(actor, input.uid, "member");
      return view(await db.project.update({ where: { id: project.id }, data: { name: input.name } }));
    },

    async remove(actor: Actor, uid: string): Promise<void> {
      const project = await loadFor(actor, uid, "member");
      const busy = await db.review.count({
        where: { projectId: project.id, status: { in: [...ACTIVE_REVIEW_STATUSES] } },
      });
      if (busy > 0)
        throw conflict(
          `A review of this project is still running. Cancel it (or wait for it to finish), then delete the project.`,
        );
      if (project.status === "ingesting")
        throw conflict(
          "This project's code is being imported. Wait for the import to finish, then delete the project.",
        );
      const [snapshots, reviews] = await Promise.all([
        db.snapshot.findMany({ where: { projectId: project.id }, select: { id: true } }),
        db.review.findMany({ where: { projectId: project.id }, select: { uid: true } }),
      ]);
      await db.project.delete({ where: { id: project.id } }); // snapshots, reviews, findings, dismissals cascade
      await deps.dropRooms([projectRoom(project.uid), ...reviews.map((r) => reviewRoom(r.uid))]);
      await deps.dropStorage(
        project.id,
        snapshots.map((s) => s.id),
      );
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
