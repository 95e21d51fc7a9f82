import { Workflow } from "lucide-react";
import { ComingSoon } from "@/app/_components/coming-soon.tsx";

export default function PipelinesPage() {
  return (
    <ComingSoon title="Pipelines" description="UltraRAG-compatible RAG pipelines written in YAML." icon={<Workflow className="size-8" />}>
      Pipelines you add will be listed here, with their runs streaming live.
    </ComingSoon>
  );
}
