/**
 * Rows whose uid the browser chose (so the page can link to the new row before the answer arrives).
 * A unique violation on that insert means the id is already taken: a replayed request or a stale form,
 * which the user fixes by reloading.
 */
import { conflict } from "../errors.ts";
import { isUniqueViolation } from "./client.ts";

export async function insertWithClientUid<T>(thing: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (err) {
    if (isUniqueViolation(err))
      throw conflict(`A ${thing} with this id already exists; reload the page and try again.`);
    throw err;
  }
}
