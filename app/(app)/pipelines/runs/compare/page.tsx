import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import CompareRunsPage from "./compare-runs-page.tsx";

type Search = Record<string, string | string[] | undefined>;

/** The comparison's read (./compare-runs-page.tsx asks for the same): the runs `?a=` and `?b=`. */
async function load({ trpc, fetch }: PageLoad, search: Search) {
  const get = (key: string) => [search[key]].flat()[0] ?? "";
  await fetch(trpc.pipelines.compareRuns.queryOptions({ a: get("a"), b: get("b") }));
}

/** Two runs side by side, with their data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  return (
    <Prefetch load={(l) => load(l, search)}>
      <CompareRunsPage />
    </Prefetch>
  );
}
