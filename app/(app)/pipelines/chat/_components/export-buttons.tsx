"use client";
/** Exporting a chat session: its turns downloaded as Markdown or as a .docx file, and the two buttons that ask for them. */
import { useQueryClient } from "@tanstack/react-query";
import { FileDown } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { downloadBase64 } from "./download.ts";

type ExportFormat = "markdown" | "docx";

/** The export under way (its button shows busy) and the way to start one. */
export function useSessionExport(uid: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [exporting, setExporting] = useState<ExportFormat | null>(null);
  async function exportAs(format: ExportFormat) {
    setExporting(format);
    try {
      downloadBase64(
        await queryClient.fetchQuery({ ...trpc.pipelineChat.export.queryOptions({ uid, format }), staleTime: 0 }),
      );
    } catch (err) {
      toast.error(errorInfo(err).message);
    } finally {
      setExporting(null);
    }
  }
  return { exporting, exportAs };
}

export function ExportButtons({
  exporting,
  exportAs,
  disabled,
}: ReturnType<typeof useSessionExport> & { disabled: boolean }) {
  return (
    <>
      <Button
        variant="secondary"
        busy={exporting === "markdown"}
        disabled={disabled}
        onClick={() => void exportAs("markdown")}
      >
        <FileDown className="size-4" aria-hidden /> Markdown
      </Button>
      <Button variant="secondary" busy={exporting === "docx"} disabled={disabled} onClick={() => void exportAs("docx")}>
        <FileDown className="size-4" aria-hidden /> .docx
      </Button>
    </>
  );
}
