import { preloadQueries } from "../_components/preload-queries.ts";
import { PipelineWorkbench } from "../_components/workbench.tsx";

export default async function PipelinePage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  // The workbench's first read (pipelines.get), fetched by the browser with the page's scripts.
  preloadQueries({ path: "pipelines.get", input: { uid } });
  return <PipelineWorkbench target={{ kind: "workspace", uid }} />;
}
