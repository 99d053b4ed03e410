// Reads a whole stream as UTF-8 text: the tool commands' `-f -` (standard input). Called by tools.ts; never
// logs what it reads.

/** A whole stream as UTF-8 text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
