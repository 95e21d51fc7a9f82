import { SearchCheck } from "lucide-react";
import { ComingSoon } from "@/app/_components/coming-soon.tsx";

export default function ReviewsPage() {
  return (
    <ComingSoon title="Reviews" description="AI reviews of your projects, with findings by severity and file." icon={<SearchCheck className="size-8" />}>
      Reviews run on an imported project. Import code into a project first; the review agent arrives in a coming release.
    </ComingSoon>
  );
}
