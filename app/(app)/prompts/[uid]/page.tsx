import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import PromptPage from "./prompt-page.tsx";

/** A prompt's first read (./prompt-page.tsx asks for the same). */
async function load({ trpc, fetch }: PageLoad, uid: string) {
  await fetch(trpc.prompts.get.queryOptions({ uid }));
}

/** A prompt's page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Prefetch load={(l) => load(l, uid)}>
      <PromptPage />
    </Prefetch>
  );
}
