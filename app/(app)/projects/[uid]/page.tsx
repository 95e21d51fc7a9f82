import { defaultFile } from "@/app/_components/file-paths.ts";
import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import ProjectPage from "./project-page.tsx";

type Search = Record<string, string | string[] | undefined>;

/** The project page's first reads (./project-page.tsx asks for the same): the project, its
 * snapshots, and the file tree with the open file of the snapshot shown (`?snapshot=`, else the
 * latest ready one; `?file=`, else the README). */
async function load({ trpc, fetch }: PageLoad, uid: string, search: Search) {
  const [, snapshots] = await Promise.all([
    fetch(trpc.projects.get.queryOptions({ uid })),
    fetch(trpc.snapshots.list.queryOptions({ projectUid: uid })),
  ]);
  const selected = snapshots.find((s) => s.uid === search.snapshot) ?? snapshots.find((s) => s.status === "ready");
  if (!selected || (search.tab ?? "files") !== "files") return;
  const snapshotUid = selected.uid;
  const tree = await fetch(trpc.snapshots.tree.queryOptions({ snapshotUid }));
  const file = typeof search.file === "string" ? search.file : defaultFile(tree.map((f) => f.path));
  if (!file) return;
  await Promise.all([
    fetch(trpc.snapshots.file.queryOptions({ snapshotUid, path: file })),
    fetch(trpc.snapshots.outline.queryOptions({ snapshotUid, path: file })),
  ]);
}

/** The project page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page(props: { params: Promise<{ uid: string }>; searchParams: Promise<Search> }) {
  const [{ uid }, search] = await Promise.all([props.params, props.searchParams]);
  return (
    <Prefetch load={(l) => load(l, uid, search)}>
      <ProjectPage />
    </Prefetch>
  );
}
