"use client";
/**
 * A snapshot's files as a tree: folders fold (<details>), files link to the code viewer under their
 * name (the whole path is the link's accessible name and title). Folders start open when the
 * project is small, when a filter is typed, and along the open file's path; a big project opens
 * folded, so its first screen renders a few dozen rows, not thousands. A folded folder's rows are
 * not rendered at all (only once it is opened): a 5,000-file project would otherwise send, hydrate
 * and keep 5,000 hidden links.
 */
import Link from "next/link";
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { cx } from "./ui.tsx";

interface Folder {
  name: string;
  path: string;
  folders: Map<string, Folder>;
  files: { name: string; path: string }[];
}

/** Up to this many files, every folder starts open. */
const OPEN_ALL = 100;

function buildTree(paths: readonly string[]): Folder {
  const root: Folder = { name: "", path: "", folders: new Map(), files: [] };
  for (const p of paths) {
    const parts = p.split("/");
    let at = root;
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part);
      if (!next) {
        next = { name: part, path: at.path ? `${at.path}/${part}` : part, folders: new Map(), files: [] };
        at.folders.set(part, next);
      }
      at = next;
    }
    at.files.push({ name: parts[parts.length - 1]!, path: p });
  }
  return root;
}

export function FileTree({
  paths,
  current,
  filtered,
  hrefFor,
}: {
  paths: readonly string[];
  current: string | undefined;
  /** A filter is typed: every folder with a match opens. */
  filtered: boolean;
  hrefFor: (path: string) => string;
}) {
  const root = useMemo(() => buildTree(paths), [paths]);
  const openAll = filtered || paths.length <= OPEN_ALL;
  const renderFolder = (f: Folder, depth: number): ReactNode => (
    <>
      {[...f.folders.values()]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((sub) => (
          // Keyed by openAll as well: typing or clearing a filter re-opens (or re-folds) every folder.
          <FolderRow
            key={`${sub.path}:${openAll}`}
            folder={sub}
            depth={depth}
            startOpen={openAll || (current?.startsWith(`${sub.path}/`) ?? false)}
          >
            {() => renderFolder(sub, depth + 1)}
          </FolderRow>
        ))}
      {f.files.map((file) => (
        <li key={file.path}>
          <Link
            href={hrefFor(file.path)}
            aria-current={file.path === current ? "page" : undefined}
            aria-label={file.path}
            className={cx(
              "block truncate rounded px-2 py-0.5 font-mono text-xs",
              file.path === current
                ? "bg-brand-50 font-medium dark:bg-brand-700/30"
                : "hover:bg-zinc-100 dark:hover:bg-zinc-800",
            )}
            style={{ paddingLeft: `${0.5 + depth * 0.75}rem` }}
            title={file.path}
          >
            {file.name}
          </Link>
        </li>
      ))}
    </>
  );
  return (
    <ul aria-label="Files" className="text-sm">
      {renderFolder(root, 0)}
    </ul>
  );
}

/** A folder's row: its rows are rendered while it is open, and dropped again when it folds. */
function FolderRow({
  folder,
  depth,
  startOpen,
  children,
}: {
  folder: Folder;
  depth: number;
  startOpen: boolean;
  children: () => ReactNode;
}) {
  const [open, setOpen] = useState(startOpen);
  // A file opened from elsewhere (a search hit, a finding) opens the folders along its path.
  useEffect(() => {
    if (startOpen) setOpen(true);
  }, [startOpen]);
  return (
    <li>
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary
          className="cursor-pointer truncate rounded px-2 py-0.5 font-mono text-xs text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          style={{ paddingLeft: `${0.5 + depth * 0.75}rem` }}
          title={folder.path}
        >
          {folder.name}/
        </summary>
        {open && <ul>{children()}</ul>}
      </details>
    </li>
  );
}
