import { preloadQueries } from "../../pipelines/_components/preload-queries.ts";
import ProjectPage from "./project-page.tsx";

/** The project page: its first reads (the project, its snapshots) fetched by the browser with the page's scripts. */
export default async function Page({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  preloadQueries({ path: "projects.get", input: { uid } }, { path: "snapshots.list", input: { projectUid: uid } });
  return <ProjectPage />;
}
