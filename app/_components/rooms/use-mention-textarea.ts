"use client";
/**
 * The @mention list's hold on its textarea: native listeners (set up once per textarea) that open the
 * list on `@…`, move through it with ↑/↓, pick with Enter or Tab, close with Esc or on blur; and the
 * caret put after the inserted token once the draft holds it.
 */
import { type Dispatch, type RefObject, type SetStateAction, useEffect, useLayoutEffect, useRef } from "react";
import { activeMentionQuery, insertArgus, insertMention } from "@/server/shared/mentions.ts";
import type { MentionOption } from "./mention-list.tsx";

/** The `@…` being typed: where it starts and what follows it. */
export interface OpenMention {
  start: number;
  query: string;
}

/** The latest render's state, as the listeners read it. */
export interface MentionState {
  visible: boolean;
  options: MentionOption[];
  active: number;
  open: OpenMention | null;
  onChange: (next: string) => void;
}

/** The keys the list uses (while it is open). */
const LIST_KEYS = ["ArrowDown", "ArrowUp", "Enter", "Tab", "Escape"];

/** Returns a ref to the picker of the i-th option (for clicks). */
export function useMentionTextarea(
  textarea: HTMLTextAreaElement | null,
  value: string,
  latest: RefObject<MentionState>,
  setOpen: Dispatch<SetStateAction<OpenMention | null>>,
  setActive: (i: number) => void,
): RefObject<(i: number) => void> {
  // The `@` the reader closed with Esc: it stays closed until they type another one.
  const dismissed = useRef<number | null>(null);
  const caretAfterPick = useRef<number | null>(null);
  /** Picks the i-th option (set by the listener effect, used by clicks). */
  const pickRef = useRef<(i: number) => void>(() => undefined);

  useEffect(() => {
    if (!textarea) return;
    const update = () => {
      const found = activeMentionQuery(textarea.value, textarea.selectionStart ?? 0);
      if (!found || found.start !== dismissed.current) dismissed.current = null;
      const next = found && dismissed.current === null ? found : null;
      setOpen((had) => (had?.start === next?.start && had?.query === next?.query ? had : next));
      if (next?.start !== latest.current.open?.start || next?.query !== latest.current.open?.query) setActive(0);
    };
    const pick = (i: number) => {
      const { open: o, options: opts, onChange: change } = latest.current;
      const m = opts[i];
      if (!o || !m) return;
      const caret = textarea.selectionStart ?? textarea.value.length;
      const r =
        m.kind === "argus"
          ? insertArgus(textarea.value, o.start, caret)
          : insertMention(textarea.value, o.start, caret, { id: m.userId, name: m.name });
      caretAfterPick.current = r.caret;
      setOpen(null);
      change(r.text);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      const { visible: shown, options: opts, active: at } = latest.current;
      if (!shown || e.isComposing) return;
      const handled = LIST_KEYS.includes(e.key) && !e.shiftKey;
      if (!handled) return;
      e.preventDefault();
      e.stopPropagation();
      if (e.key === "ArrowDown") setActive((at + 1) % opts.length);
      else if (e.key === "ArrowUp") setActive((at - 1 + opts.length) % opts.length);
      else if (e.key === "Escape") {
        dismissed.current = latest.current.open?.start ?? null;
        setOpen(null);
      } else pick(at);
    };
    const onKeyUp = (e: KeyboardEvent) => {
      // Caret moves (←/→, Home, End) change what is being typed; the keys the list uses do not.
      if (!LIST_KEYS.includes(e.key)) update();
    };
    const onBlur = () => setOpen(null);
    textarea.addEventListener("input", update);
    textarea.addEventListener("click", update);
    textarea.addEventListener("keyup", onKeyUp);
    textarea.addEventListener("keydown", onKeyDown);
    textarea.addEventListener("blur", onBlur);
    pickRef.current = pick;
    return () => {
      textarea.removeEventListener("input", update);
      textarea.removeEventListener("click", update);
      textarea.removeEventListener("keyup", onKeyUp);
      textarea.removeEventListener("keydown", onKeyDown);
      textarea.removeEventListener("blur", onBlur);
    };
  }, [textarea]);

  // After a pick the draft is new: put the caret after the inserted token.
  useLayoutEffect(() => {
    const at = caretAfterPick.current;
    if (at === null || !textarea || textarea.value !== value) return;
    caretAfterPick.current = null;
    textarea.focus();
    textarea.setSelectionRange(at, at);
  }, [value, textarea]);

  return pickRef;
}
