// The Node.js version check that runs before anything else is loaded: with an older Node the dependencies die with
// errors that name no cause (undici's `TEXT_ENCODINGS.union is not a function` on Node 20). Called by main.ts.
// Must import nothing and use only what every Node since 12 has.

/** The oldest Node this operator runs on: package.json's `engines.node` (undici needs 22.19). */
export const MIN_NODE = { major: 22, minor: 19 } as const;

export interface WhereRun {
  /**
   * The CLI runs from a checkout of its own repository (hack/ensure-node.sh beside dist/), where `make` provisions
   * Node 24; an installed CLI or a scaffolded project has no such thing. @default false
   */
  readonly checkout?: boolean;
}

/** The message for a Node older than MIN_NODE, or undefined when `version` (e.g. "20.20.2") is new enough. */
export function nodeTooOld(version: string, where: WhereRun = {}): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return undefined;
  const min = `${MIN_NODE.major}.${MIN_NODE.minor}`;
  return (
    `helm-operator needs Node >= ${min}, found v${version.replace(/^v/, '')}: install Node ${min} or newer ` +
    '(Node 24 LTS from https://nodejs.org, your package manager or a version manager such as nvm) and run ' +
    'helm-operator with it' +
    (where.checkout
      ? "; in this repository's checkout, make puts Node 24 into .tools/ (hack/ensure-node.sh) for its targets"
      : '')
  );
}
