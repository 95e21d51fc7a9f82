"use client";
/**
 * A review prompt's text, co-edited (server/coedit): CodeMirror bound to the prompt's shared draft
 * (teammates' cursors, own-edits undo), with the same bar as the pipeline editor (offline, ended,
 * who is editing, follow). `onReady` hands the page the draft's save (it saves the merged text).
 */
import { EditorView } from "@codemirror/view";
import CodeMirror, { type ReactCodeMirrorRef } from "@uiw/react-codemirror";
import { useTheme } from "next-themes";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { useChatRoom } from "@/app/_components/rooms/use-chat-room.ts";
import { useSharedDoc } from "@/app/_lib/coedit/use-shared-doc.ts";
import { PROMPT_TEXT } from "@/server/shared/coedit.ts";
import { SharedEditingBar, sharedExtensions } from "./shared-editing.tsx";

export function SharedPromptEditor({
  uid,
  user,
  readOnly,
  onReady,
}: {
  uid: string;
  user: { id: string; name: string };
  readOnly: boolean;
  onReady: (save: (() => Promise<{ ok: boolean; message?: string }>) | null) => void;
}) {
  const chat = useChatRoom("prompt", uid);
  const { client, state, editors } = useSharedDoc(chat.room, chat.state.connected, user);
  const synced = !!client && !!state && state.status !== "opening";
  const text = synced ? client.doc.getText(PROMPT_TEXT) : null;
  const ref = useRef<ReactCodeMirrorRef>(null);
  const { resolvedTheme } = useTheme();
  const extensions = useMemo(
    () => [
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": "Prompt", id: "prompt-content" }),
      ...(text && client ? sharedExtensions(text, client.awareness) : []),
    ],
    [text, client],
  );
  const initial = useMemo(() => text?.toString() ?? "", [text]);
  useEffect(() => {
    onReady(client && synced ? () => client.save() : null);
  }, [client, synced, onReady]);
  const follow = useCallback((line: number) => {
    const view = ref.current?.view;
    if (!view) return;
    const at = view.state.doc.line(Math.min(Math.max(line, 1), view.state.doc.lines)).from;
    view.dispatch({ effects: EditorView.scrollIntoView(at, { y: "center" }) });
  }, []);
  if (!text || !client || !state) return <p className="text-sm text-zinc-500">Opening the shared draft…</p>;
  const locked = readOnly || state.readOnly || state.status === "ended";
  return (
    <div>
      <SharedEditingBar shared={{ text, awareness: client.awareness, state, editors }} onFollow={follow} />
      <div className="overflow-hidden rounded-md border border-zinc-300 text-sm dark:border-zinc-700">
        <CodeMirror
          ref={ref}
          value={initial}
          height="20rem"
          theme={resolvedTheme === "dark" ? "dark" : "light"}
          extensions={extensions}
          readOnly={locked}
          editable={!locked}
          basicSetup={{ lineNumbers: false, foldGutter: false, history: false, historyKeymap: false }}
        />
      </div>
    </div>
  );
}
