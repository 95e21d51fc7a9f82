import { Prefetch } from "@/app/_lib/server-prefetch.tsx";
import { PipelineWorkbench } from "../_components/workbench.tsx";

/** A workspace pipeline's page, with its first read (pipelines.get: source, parameters, the step
 * graph) in the HTML (app/_lib/server-prefetch.tsx). */
export default async function PipelinePage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Prefetch load={({ trpc, fetch }) => fetch(trpc.pipelines.get.queryOptions({ uid }))}>
      <PipelineWorkbench target={{ kind: "workspace", uid }} />
    </Prefetch>
  );
}
