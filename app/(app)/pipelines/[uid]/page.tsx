"use client";
import { useParams } from "next/navigation";
import { PipelineWorkbench } from "../_components/workbench.tsx";

export default function PipelinePage() {
  const { uid } = useParams<{ uid: string }>();
  return <PipelineWorkbench target={{ kind: "workspace", uid }} />;
}
