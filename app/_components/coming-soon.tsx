import type { ReactNode } from "react";
import { EmptyState, PageHeader } from "./ui.tsx";

/** Sections whose features land with later work: say what will be here, not a blank page. */
export function ComingSoon({
  title,
  description,
  icon,
  children,
}: {
  title: string;
  description: string;
  icon: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <PageHeader title={title} description={description} />
      <EmptyState icon={icon} title={`No ${title.toLowerCase()} yet`}>
        {children}
      </EmptyState>
    </>
  );
}
