/** The next page's cursor of a cursor-paged tRPC list (none after the last page): the
 * `getNextPageParam` of every infinite list, used alike by a page's server loader and its client. */
export const nextCursor = (last: { nextCursor?: string | null }) => last.nextCursor ?? undefined;
