"use client";
/**
 * The pipeline's YAML in CodeMirror 6 (YAML highlighting, line numbers, search, undo) with the
 * engine's diagnostics drawn at their line and column as lint marks, and listed under the editor as
 * buttons that move the cursor there. The diagnostics come from the server (pipelines.validate) for
 * the text as it was sent; marks are clamped to the document as it is now. With `shared` (a
 * workspace pipeline's shared draft, shared-editing.tsx) the editor is bound to the team's text.
 */
import { yaml } from "@codemirror/lang-yaml";
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import { EditorView } from "@codemirror/view";
import CodeMirror, { type ReactCodeMirrorRef } from "@uiw/react-codemirror";
import { useTheme } from "next-themes";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { cx } from "@/app/_components/ui.tsx";
import { type SharedEditing, SharedEditingBar, sharedExtensions } from "@/app/_components/coedit/shared-editing.tsx";

export interface EditorDiagnostic {
  line: number;
  col: number;
  severity: string;
  message: string;
  hint?: string;
}

function toCm(view: EditorView, ds: readonly EditorDiagnostic[]): CmDiagnostic[] {
  const doc = view.state.doc;
  return ds.map((d) => {
    const line = doc.line(Math.min(Math.max(d.line, 1), doc.lines));
    const from = Math.min(line.from + Math.max(d.col - 1, 0), line.to);
    // Mark the word at the position (at least one character), or to the end of the line.
    const rest = doc.sliceString(from, line.to);
    const word = /^[^\s:,[\]{}]+/.exec(rest)?.[0].length ?? rest.length;
    return {
      from,
      to: Math.min(line.to, from + Math.max(word, 1)),
      severity: d.severity === "warning" ? "warning" : "error",
      message: d.hint ? `${d.message} (${d.hint})` : d.message,
    };
  });
}

export function YamlEditor({
  value,
  onChange,
  diagnostics,
  readOnly,
  label,
  height = "32rem",
  goto,
  className,
  shared,
}: {
  value: string;
  onChange?: (value: string) => void;
  diagnostics: readonly EditorDiagnostic[];
  readOnly?: boolean;
  label: string;
  height?: string;
  /** Moves the cursor to this place whenever a new object is passed (a node's "show in YAML"). */
  goto?: { line: number; col: number } | null;
  className?: string;
  /** Bound to the team's shared draft: `value` is then only what the editor starts from. */
  shared?: SharedEditing | null;
}) {
  const ref = useRef<ReactCodeMirrorRef>(null);
  const { resolvedTheme } = useTheme();
  const text = shared?.text;
  const awareness = shared?.awareness;
  const extensions = useMemo(
    () => [
      yaml(),
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": label }),
      ...(text && awareness ? sharedExtensions(text, awareness) : []),
    ],
    [label, text, awareness],
  );
  // Bound: the binding keeps the editor and the text in step; the value prop must not replace it, so
  // the bound editor is a new one (key) starting from the shared text as it is now.
  const initial = useMemo(() => (text ? text.toString() : null), [text]);
  const locked = readOnly || shared?.state.readOnly || shared?.state.status === "ended";
  const follow = useCallback((line: number) => {
    const view = ref.current?.view;
    if (!view) return;
    const at = view.state.doc.line(Math.min(Math.max(line, 1), view.state.doc.lines)).from;
    view.dispatch({ effects: EditorView.scrollIntoView(at, { y: "center" }) });
  }, []);

  useEffect(() => {
    const view = ref.current?.view;
    if (view) view.dispatch(setDiagnostics(view.state, toCm(view, diagnostics)));
  }, [diagnostics, value]);

  const jump = (d: { line: number; col: number }) => {
    const view = ref.current?.view;
    if (!view) return;
    const line = view.state.doc.line(Math.min(Math.max(d.line, 1), view.state.doc.lines));
    const pos = Math.min(line.from + Math.max(d.col - 1, 0), line.to);
    view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
    view.focus();
  };

  useEffect(() => {
    if (goto) jump(goto);
  }, [goto]);

  return (
    <div className={cx("min-w-0", className)}>
      {shared && <SharedEditingBar shared={shared} onFollow={follow} />}
      <div className="overflow-hidden rounded-md border border-zinc-300 text-sm dark:border-zinc-700">
        <CodeMirror
          ref={ref}
          key={text ? "shared" : "local"}
          value={initial ?? value}
          height={height}
          theme={resolvedTheme === "dark" ? "dark" : "light"}
          extensions={extensions}
          readOnly={locked}
          editable={!locked}
          onChange={(v) => (text ? undefined : onChange?.(v))}
          // Bound to a shared text, undo is Yjs's (only one's own edits), not the editor's history.
          basicSetup={{
            foldGutter: true,
            highlightActiveLine: !locked,
            autocompletion: false,
            history: !text,
            historyKeymap: !text,
          }}
        />
      </div>
      {diagnostics.length > 0 && (
        <ul aria-label="Problems" className="mt-2 space-y-1 text-sm">
          {diagnostics.map((d, i) => (
            <li key={`${d.line}:${d.col}:${i}`}>
              <button
                type="button"
                onClick={() => jump(d)}
                className={cx(
                  "w-full rounded px-2 py-1 text-left hover:bg-zinc-100 dark:hover:bg-zinc-800",
                  d.severity === "warning" ? "text-amber-700 dark:text-amber-300" : "text-red-700 dark:text-red-300",
                )}
              >
                <span className="font-mono text-xs">
                  Line {d.line}, column {d.col}
                </span>
                {d.severity === "warning" ? " (warning)" : ""}: {d.message}
                {d.hint && <span className="text-zinc-500"> — {d.hint}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
