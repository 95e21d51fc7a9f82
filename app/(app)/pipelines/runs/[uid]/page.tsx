import { preloadQueries } from "../../_components/preload-queries.ts";
import { RunView } from "./run-view.tsx";

export default async function RunPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  // The run's first read (pipelines.run), fetched by the browser with the page's scripts.
  preloadQueries({ path: "pipelines.run", input: { uid } });
  return <RunView uid={uid} />;
}
