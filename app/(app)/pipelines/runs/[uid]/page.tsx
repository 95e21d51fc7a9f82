import { Prefetch } from "@/app/_lib/server-prefetch.tsx";
import { RunView } from "./run-view.tsx";

/** A pipeline run's page, with its first read (pipelines.run) in the HTML (app/_lib/server-prefetch.tsx). */
export default async function RunPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Prefetch load={({ trpc, fetch }) => fetch(trpc.pipelines.run.queryOptions({ uid }))}>
      <RunView uid={uid} />
    </Prefetch>
  );
}
