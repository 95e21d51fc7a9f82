/**
 * Prisma's better-sqlite3 adapter runs every query on one connection. While an interactive
 * transaction is open, a query from another request would run *inside* it — and vanish if that
 * transaction rolls back, after its caller was told it succeeded. The gate makes each transaction
 * exclusive: queries outside it wait until it ends; queries inside it (marked by
 * AsyncLocalStorage) go straight through. SQLite executes one statement at a time anyway, so
 * nothing is lost in throughput.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A FIFO lock: run(fn) starts fn after every earlier run has settled. */
export class Lock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** The two members of a Prisma client the gate touches (typed loosely: both generated clients fit). */
type Gateable = {
  $extends(ext: object): unknown;
  $transaction: (...args: never[]) => Promise<unknown>;
};
type LooseTransaction = (arg: unknown, ...rest: unknown[]) => Promise<unknown>;

export function gateSqliteClient<C extends Gateable>(client: C): C {
  const lock = new Lock();
  const inTransaction = new AsyncLocalStorage<true>();
  const gated = client.$extends({
    query: {
      async $allOperations({ args, query }: { args: unknown; query: (args: unknown) => Promise<unknown> }) {
        // PrismaPromises are lazy: this runs when the query is actually executed.
        return inTransaction.getStore() ? query(args) : lock.run(() => query(args));
      },
    },
  }) as C;
  const transaction = (gated.$transaction as unknown as LooseTransaction).bind(gated);
  const gatedTransaction: LooseTransaction = (arg, ...rest) => {
    if (inTransaction.getStore()) return transaction(arg, ...rest); // nested: already exclusive
    return lock.run(() =>
      inTransaction.run(true, () =>
        typeof arg === "function"
          ? transaction(
              (tx: unknown) => inTransaction.run(true, () => (arg as (tx: unknown) => Promise<unknown>)(tx)),
              ...rest,
            )
          : transaction(arg, ...rest),
      ),
    );
  };
  (gated as unknown as { $transaction: LooseTransaction }).$transaction = gatedTransaction;
  return gated;
}
