"use client";
/** One model connection in Settings → Model providers: its badges, the owner's actions, and its last test's result. */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router.ts";
import type { ProviderDraft } from "./provider-dialog.tsx";
import { Badge, Button } from "./ui.tsx";

type Connection = inferRouterOutputs<AppRouter>["providers"]["list"][number];

export function ProviderRow({
  connection: c,
  isOwner,
  result,
  onTest,
  onMakeDefault,
  makingDefault,
  onEdit,
  onRemove,
}: {
  connection: Connection;
  isOwner: boolean;
  /** The last "Test" of this connection, if any. */
  result: { ok: boolean; text: string } | undefined;
  onTest: () => void;
  onMakeDefault: (uid: string) => void;
  makingDefault: boolean;
  onEdit: (draft: ProviderDraft) => void;
  onRemove: (uid: string) => void;
}) {
  return (
    <li className="py-3">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{c.name}</span>
        <Badge>{c.provider}</Badge>
        {c.model && <span className="font-mono text-xs text-zinc-500">{c.model}</span>}
        {c.source === "environment" && <Badge tone="brand">environment</Badge>}
        {c.isDefault && <Badge tone="green">workspace default</Badge>}
        <Badge tone={c.hasKey ? "green" : "zinc"}>
          {c.hasKey ? (c.apiKeyHint ? `key …${c.apiKeyHint}` : "key set") : "no key"}
        </Badge>
        <span className="flex-1" />
        {isOwner && (
          <>
            <Button variant="ghost" onClick={onTest}>
              Test
            </Button>
            {c.uid && (
              <>
                {!c.isDefault && (
                  <Button
                    variant="ghost"
                    busy={makingDefault}
                    onClick={() => onMakeDefault(c.uid!)}
                    aria-label={`Make ${c.name} the default`}
                  >
                    Make default
                  </Button>
                )}
                <Button
                  variant="ghost"
                  onClick={() =>
                    onEdit({
                      uid: c.uid!,
                      name: c.name,
                      provider: c.provider,
                      baseUrl: c.baseUrl ?? "",
                      model: c.model ?? "",
                      hasKey: c.hasKey,
                      apiKeyHint: c.apiKeyHint,
                    })
                  }
                >
                  Edit
                </Button>
                <Button variant="ghost" onClick={() => onRemove(c.uid!)}>
                  Remove
                </Button>
              </>
            )}
          </>
        )}
      </div>
      {result && (
        <p
          role="status"
          className={`mt-1 whitespace-pre-wrap break-words text-xs ${result.ok ? "text-green-700 dark:text-green-400" : "text-red-600 dark:text-red-400"}`}
        >
          {result.text}
        </p>
      )}
    </li>
  );
}
