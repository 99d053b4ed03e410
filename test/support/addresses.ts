// Reads what the operator logged about itself: the first JSON log line with a given message, one field of it, and
// the address a server bound ("Serving metrics", "Serving health probes"; port 0 picks a free one). Used by
// integration tests that talk to the operator's HTTP servers. Pure functions over the captured output.

export type ServerMessage = 'Serving metrics' | 'Serving health probes';

/** Field `key` (if a string) of the first log line whose message is `msg`; undefined until one was logged. */
export function loggedField(output: string, msg: string, key: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    const v = (JSON.parse(line) as Record<string, unknown>)[key];
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

/** The address (`host:port`) a server logged that it serves on; undefined until it did. */
export function boundAddress(output: string, server: ServerMessage): string | undefined {
  return loggedField(output, server, 'address');
}
