import { Workflow } from "lucide-react";
import { ComingSoon } from "@/app/_components/coming-soon.tsx";

export default function PipelinesPage() {
  return (
    <ComingSoon
      title="Pipelines"
      description="UltraRAG-compatible RAG pipelines written in YAML."
      icon={<Workflow className="size-8" />}
    >
      Pipelines run from the command line today —{" "}
      <code className="font-mono text-xs">npx argus pipeline run my_pipeline.yaml</code>, with UltraRAG&apos;s own files
      unchanged (see docs/pipelines.md). Running them here, with their steps streaming live, comes next.
    </ComingSoon>
  );
}
