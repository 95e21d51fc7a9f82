"use client";
/**
 * "Hide my position": the user's choice, stored on the server (account.preferences) so it holds on
 * every device. The server enforces it (server/realtime/presence.ts); the browser only reads it to
 * skip sending a position nobody will see, and to say its position again when it is shown once more.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

export function useHidePosition({ enabled = true }: { enabled?: boolean } = {}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = trpc.account.preferences.queryKey();
  const prefs = useQuery({ ...trpc.account.preferences.queryOptions(), staleTime: 60_000, enabled });
  const save = useMutation(
    trpc.account.setPreferences.mutationOptions({
      onSuccess: (saved) => queryClient.setQueryData(key, saved),
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  return {
    hidden: prefs.data?.hidePosition ?? false,
    loaded: prefs.isSuccess,
    busy: save.isPending,
    setHidden: (hidePosition: boolean) => save.mutate({ hidePosition }),
  };
}
