// node:http, loaded with require instead of an ESM import. An ESM import of a builtin reads every export to build its
// namespace, and node:http's lazy WebSocket/CloseEvent/MessageEvent getters then load undici (770 KB of JS): 13 MiB
// more RSS in every operator process, measured. Imported by kube/ and server/ for node:http; holds nothing else.
import { createRequire } from 'node:module';

type NodeHttp = typeof import('node:http');

/** The node:http module, as `require` returns it (its lazy getters left unread). */
export const nodeHttp: NodeHttp = createRequire(import.meta.url)('node:http') as NodeHttp;
