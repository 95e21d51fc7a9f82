import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import KnowledgeBasePage from "./knowledge-base-page.tsx";

/** A knowledge base's first reads (./knowledge-base-page.tsx asks for the same): the base and its
 * documents. */
async function load({ trpc, fetch }: PageLoad, uid: string) {
  await Promise.all([
    fetch(trpc.knowledge.get.queryOptions({ uid })),
    fetch(trpc.knowledge.documents.queryOptions({ uid })),
  ]);
}

/** A knowledge base's page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Prefetch load={(l) => load(l, uid)}>
      <KnowledgeBasePage />
    </Prefetch>
  );
}
