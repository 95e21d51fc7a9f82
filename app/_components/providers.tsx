"use client";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ThemeProvider } from "next-themes";
import { useState, type ReactNode } from "react";
import { Toaster } from "sonner";
import { makeTrpcClient, TRPCProvider } from "@/app/_lib/trpc.ts";

function retry(failureCount: number, err: unknown) {
  const status = (err as { data?: { httpStatus?: number } })?.data?.httpStatus;
  // 4xx answers will not change on retry.
  return !(status && status >= 400 && status < 500) && failureCount < 2;
}

/** `nonce`: the page's CSP nonce, for next-themes' inline script (the only inline script we add). */
export function Providers({ children, nonce }: { children: ReactNode; nonce?: string }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { retry, staleTime: 5_000 } },
        queryCache: new QueryCache(),
        mutationCache: new MutationCache(),
      }),
  );
  const [trpcClient] = useState(makeTrpcClient);
  return (
    <ThemeProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange nonce={nonce}>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {children}
          <Toaster richColors closeButton position="bottom-right" />
        </TRPCProvider>
      </QueryClientProvider>
    </ThemeProvider>
  );
}
