import { preloadQueries } from "./pipelines/_components/preload-queries.ts";
import DashboardPage from "./dashboard.tsx";

/** The dashboard: the shell's first read (account.me) fetched by the browser with the page's scripts. */
export default function Page() {
  preloadQueries();
  return <DashboardPage />;
}
