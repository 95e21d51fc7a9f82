"use client";
/** POST a body with upload progress (fetch cannot report it): the status and the parsed JSON reply. */
export function uploadWithProgress<T extends { message?: string }>(
  url: string,
  body: Blob | FormData,
  headers: Record<string, string>,
  onProgress: (fraction: number) => void,
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let reply: T;
      try {
        reply = JSON.parse(xhr.responseText || "{}") as T;
      } catch {
        reply = { message: `Upload failed (${xhr.status}).` } as T;
      }
      resolve({ status: xhr.status, body: reply });
    };
    xhr.onerror = () => reject(new Error("The upload was interrupted. Check the connection and try again."));
    xhr.send(body);
  });
}
