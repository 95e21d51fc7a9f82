import Link from "next/link";

export default function NotFound() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-3 p-8 text-center">
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="text-sm text-zinc-500">The link may be old, or the thing it pointed to was deleted.</p>
      <Link href="/" className="text-sm font-medium text-brand-600 hover:underline">
        Go to the dashboard
      </Link>
    </main>
  );
}
