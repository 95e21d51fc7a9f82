/** Small display helpers shared by the knowledge pages. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const statusTone = (status: string): "zinc" | "brand" | "amber" | "green" =>
  status === "ready"
    ? "green"
    : status === "indexing" || status === "pending"
      ? "brand"
      : status === "empty"
        ? "zinc"
        : "amber";
