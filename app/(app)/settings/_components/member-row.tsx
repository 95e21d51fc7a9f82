"use client";
/** One person in Settings → Members: name, email and role; an owner changes the role here and can remove them. */
import { UserMinus } from "lucide-react";
import { Badge, Button } from "@/app/_components/ui.tsx";
import type { Role } from "@/app/_lib/workspace.tsx";

const roleTone = { owner: "brand", member: "green", viewer: "amber" } as const;
const roleOptions: { value: Role; label: string }[] = [
  { value: "owner", label: "Owner" },
  { value: "member", label: "Member" },
  { value: "viewer", label: "Viewer (read-only)" },
];

export type Member = { userId: string; name: string; email: string; role: Role };

export function MemberRow({
  member: m,
  self,
  isOwner,
  changingRole,
  onRole,
  onRemove,
}: {
  member: Member;
  /** The member is the one looking. */
  self: boolean;
  /** The one looking owns the workspace: roles are a choice, and others can be removed. */
  isOwner: boolean;
  /** A role change is under way (the choices wait for it). */
  changingRole: boolean;
  onRole: (role: Role) => void;
  onRemove: () => void;
}) {
  return (
    <li className="flex flex-wrap items-center gap-3 py-2">
      <span className="font-medium">
        {m.name}
        {self && <span className="font-normal text-zinc-500"> (you)</span>}
      </span>
      <span className="min-w-0 flex-1 truncate text-zinc-500">{m.email}</span>
      {isOwner ? (
        <select
          // Not "Role …": the invite form's "Role" select keeps its label to itself.
          aria-label={`Access for ${m.name}`}
          value={m.role}
          disabled={changingRole}
          onChange={(e) => onRole(e.target.value as Role)}
          className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        >
          {roleOptions.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : (
        <Badge tone={roleTone[m.role]}>{m.role}</Badge>
      )}
      {isOwner && !self && (
        <Button variant="ghost" aria-label={`Remove ${m.name}`} onClick={onRemove}>
          <UserMinus className="size-4" aria-hidden />
        </Button>
      )}
    </li>
  );
}
