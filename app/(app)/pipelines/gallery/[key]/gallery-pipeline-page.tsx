"use client";
import { useParams } from "next/navigation";
import { PipelineWorkbench } from "../../_components/workbench.tsx";

export default function GalleryPipelinePage() {
  const { key } = useParams<{ key: string }>();
  return <PipelineWorkbench target={{ kind: "gallery", key: decodeURIComponent(key) }} />;
}
