/** One entry of a zip archive held in memory, as text (tests read a .docx's word/document.xml). */
import yauzl from "yauzl";

export function zipEntryText(zip: Buffer, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err ?? new Error("not a zip archive"));
      file.on("error", reject);
      file.on("end", () => reject(new Error(`the archive has no ${name}`)));
      file.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName !== name) return file.readEntry();
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error(`cannot read ${name}`));
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("error", reject);
          stream.on("end", () => {
            file.close();
            resolve(Buffer.concat(chunks).toString("utf8"));
          });
        });
      });
      file.readEntry();
    });
  });
}
