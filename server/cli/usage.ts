/**
 * What every `argus` command shares: a usage error (exit 2, printed with the command's help) versus
 * any other failure (exit 1, one line).
 */
export class UsageError extends Error {}

export async function runCommand(label: string, help: string, err: (s: string) => void, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${label}: ${e.message}\n\n${help}\n`);
      return 2;
    }
    err(`${label}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
