// The shapes the helm CLI adapter hands out, in a module of their own so that the argv/output helpers (args.ts)
// and the adapter (cli.ts) share them without importing each other. Types only; imported by helm/ and re-exported
// by cli.ts.

/** The subset of helm's `--output json` release that the operator reads. Never includes the values (`config`). */
export interface HelmReleaseResult {
  readonly name: string;
  readonly namespace: string;
  readonly version: number;
  readonly info: { readonly status: string; readonly notes?: string };
  readonly manifest: string;
  readonly chart: { readonly metadata: { readonly name: string; readonly version: string } };
}
