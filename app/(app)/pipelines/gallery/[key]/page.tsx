import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import GalleryPipelinePage from "./gallery-pipeline-page.tsx";

/** A gallery pipeline's first read, for the user's current workspace (../../_components/workbench.tsx,
 * through ./gallery-pipeline-page.tsx, asks for the same: its source, parameters and step graph). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad, key: string) {
  const workspaceId = await current();
  if (workspaceId) await fetch(trpc.pipelines.gallery.queryOptions({ workspaceId, key }));
}

/** A gallery pipeline's page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ params }: { params: Promise<{ key: string }> }) {
  const { key } = await params;
  // The client decodes the segment it reads from the address the same way.
  return (
    <Prefetch load={(l) => load(l, decodeURIComponent(key))}>
      <GalleryPipelinePage />
    </Prefetch>
  );
}
