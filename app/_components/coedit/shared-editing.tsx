"use client";
/**
 * What co-editing adds to the YAML editor (server/coedit): the CodeMirror binding to the shared text
 * (y-codemirror.next: teammates' cursors and selections with their name and colour; undo undoes only
 * your own edits), your cursor's line for the others, and the bar above the editor — offline banner,
 * a session that ended, a full draft, and who is editing where, with *follow* to keep their cursor's
 * line in view.
 */
import { keymap, type EditorView, ViewPlugin } from "@codemirror/view";
import type { Extension } from "@codemirror/state";
import { Eye, EyeOff, WifiOff } from "lucide-react";
import { useEffect, useState } from "react";
import { yCollab, yUndoManagerKeymap } from "y-codemirror.next";
import type { Awareness } from "y-protocols/awareness";
import * as Y from "yjs";
import type { DocClientState } from "@/app/_lib/coedit/doc-client.ts";
import type { Coeditor } from "@/app/_lib/coedit/use-shared-doc.ts";

export interface SharedEditing {
  text: Y.Text;
  awareness: Awareness;
  state: DocClientState;
  editors: Coeditor[];
}

/** The editor's extensions for a shared text: the binding, own-edits undo, and the cursor's line. */
export function sharedExtensions(text: Y.Text, awareness: Awareness): Extension[] {
  const undoManager = new Y.UndoManager(text);
  const lineReporter = ViewPlugin.define((view: EditorView) => {
    let last = -1;
    const report = () => {
      const line = view.state.doc.lineAt(view.state.selection.main.head).number;
      if (line === last || !view.hasFocus) return;
      last = line;
      // After the editor's update: telling the others is not part of it.
      queueMicrotask(() => awareness.setLocalStateField("line", line));
    };
    return { update: report };
  });
  return [yCollab(text, awareness, { undoManager }), keymap.of(yUndoManagerKeymap), lineReporter];
}

export function SharedEditingBar({
  shared,
  onFollow,
}: {
  shared: SharedEditing;
  /** Scrolls the editor to this line (following a teammate). */
  onFollow: (line: number) => void;
}) {
  const [following, setFollowing] = useState<number | null>(null);
  const followed = shared.editors.find((e) => e.clientId === following) ?? null;
  useEffect(() => {
    if (followed?.line) onFollow(followed.line);
  }, [followed?.line, onFollow]);
  const { state } = shared;
  return (
    <div className="mb-2 space-y-2 text-xs">
      {state.status === "offline" && (
        <p
          role="status"
          className="flex items-center gap-1 rounded bg-amber-100 px-2 py-1 text-amber-900 dark:bg-amber-900/40 dark:text-amber-200"
        >
          <WifiOff className="size-3.5" aria-hidden /> You are offline: keep typing, your edits merge with the
          team&apos;s when the connection is back.
        </p>
      )}
      {state.status === "ended" && (
        <p role="alert" className="rounded bg-red-100 px-2 py-1 text-red-900 dark:bg-red-900/40 dark:text-red-200">
          {state.message ?? "This shared draft is closed."}
        </p>
      )}
      {state.full && state.status !== "ended" && (
        <p
          role="alert"
          className="rounded bg-amber-100 px-2 py-1 text-amber-900 dark:bg-amber-900/40 dark:text-amber-200"
        >
          This draft is full: save a version to continue editing.
        </p>
      )}
      {shared.editors.length > 0 && (
        <ul aria-label="Editing now" className="flex flex-wrap items-center gap-2">
          {shared.editors.map((e) => (
            <li key={e.clientId} className="flex items-center gap-1">
              <span className="inline-block size-2 rounded-full" style={{ backgroundColor: e.color }} aria-hidden />
              <span>
                {e.name}
                {e.line ? `, line ${e.line}` : ""}
                {e.node ? ` (${e.node})` : ""}
              </span>
              <button
                type="button"
                className="rounded px-1 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800"
                aria-pressed={following === e.clientId}
                aria-label={following === e.clientId ? `Stop following ${e.name}` : `Follow ${e.name}`}
                onClick={() => setFollowing(following === e.clientId ? null : e.clientId)}
              >
                {following === e.clientId ? <EyeOff className="size-3.5" /> : <Eye className="size-3.5" />}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
