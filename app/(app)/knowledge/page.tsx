import { BookOpen } from "lucide-react";
import { ComingSoon } from "@/app/_components/coming-soon.tsx";

export default function KnowledgePage() {
  return (
    <ComingSoon title="Knowledge" description="Document collections the agents and pipelines can search." icon={<BookOpen className="size-8" />}>
      Knowledge bases you create will be listed here.
    </ComingSoon>
  );
}
