"use client";
import { useQuery } from "@tanstack/react-query";
import { FileUp } from "lucide-react";
import Link from "next/link";
import { useParams } from "next/navigation";
import { Badge, DelayedSkeleton, EmptyState, ErrorNotice, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

export default function ProjectPage() {
  const { uid } = useParams<{ uid: string }>();
  const trpc = useTRPC();
  const project = useQuery(trpc.projects.get.queryOptions({ uid }));
  if (project.isError) {
    return (
      <>
        <p className="mb-4 text-sm">
          <Link href="/projects" className="text-brand-600 hover:underline">
            ← Projects
          </Link>
        </p>
        <ErrorNotice message={errorInfo(project.error).message} />
      </>
    );
  }
  if (!project.data) return <DelayedSkeleton />;
  return (
    <>
      <p className="mb-2 text-sm">
        <Link href="/projects" className="text-brand-600 hover:underline">
          ← Projects
        </Link>
      </p>
      <PageHeader title={project.data.name} description={`Created ${new Date(project.data.createdAt).toLocaleString()}`} actions={<Badge>{project.data.status}</Badge>} />
      <EmptyState icon={<FileUp className="size-8" />} title="No code imported yet">
        Importing a codebase (zip, files, folder or git URL) comes with the codebase layer. Reviews and chat over the code follow.
      </EmptyState>
    </>
  );
}
