// The helm flags that depend on its major version, for one client: the post-renderer (a path for helm 3, the
// plugin for helm 4), `--force-conflicts` for helm 4's server-side apply (`--server-side=false` instead for a release
// applied client-side), and what operator-sdk's force becomes.
// Pure; called by the helm CLI adapter (cli.ts) when it builds install, upgrade and rollback argv. Never spawns.
import { ConfigError } from '../core/errors.js';
import type { PostRenderArgs } from './argv.js';
import { POST_RENDER_PLUGIN } from './env.js';
import type { PostRenderer } from './types.js';

export interface VersionFlagsOptions {
  /** helm's major version, probed at startup; undefined makes every call throw a ConfigError. */
  readonly major: number | undefined;
  readonly postRenderer?: PostRenderer | undefined;
}

export interface VersionFlags {
  /** The post-renderer and, for helm 4's server-side apply, `--force-conflicts` so the chart wins over others. */
  apply(
    command: string,
    p: { readonly postRenderArgs?: readonly string[]; readonly clientSideApply?: boolean },
  ): { postRender?: PostRenderArgs; forceConflicts: boolean; clientSideApply: boolean };
  /**
   * operator-sdk's force (upgrade-force, rollback-force): `--force` (replace) on helm 3; on helm 4, whose
   * server-side apply refuses `--force` ("cannot use server-side apply and force replace together"),
   * `--force-conflicts`, which takes the chart's fields back from whoever changed them.
   */
  force(
    command: string,
    force: boolean | undefined,
    clientSideApply?: boolean,
  ): { force: boolean; forceConflicts?: boolean; clientSideApply: boolean };
}

export function versionFlags(o: VersionFlagsOptions): VersionFlags {
  const majorFor = (command: string): number => {
    if (o.major !== undefined) return o.major;
    throw new ConfigError(
      `helm ${command} needs the helm major version: probe it with version() at startup and pass it as createHelmCli({ major })`,
    );
  };
  return {
    apply(command, p) {
      const v4 = majorFor(command) >= 4;
      // helm 4 refuses --force-conflicts without server-side apply.
      const sides = {
        forceConflicts: v4 && p.clientSideApply !== true,
        clientSideApply: v4 && p.clientSideApply === true,
      };
      const pr = o.postRenderer;
      if (pr === undefined) return sides;
      const args = [...(v4 ? [] : pr.args), ...(p.postRenderArgs ?? [])];
      return { postRender: { renderer: v4 ? POST_RENDER_PLUGIN : pr.command, args }, ...sides };
    },
    force(command, force, clientSideApply) {
      if (!force && clientSideApply !== true) return { force: false, clientSideApply: false };
      const v4 = majorFor(command) >= 4;
      // A release helm 4 applied client-side stays so: no --force-conflicts, which needs server-side apply.
      if (v4 && clientSideApply === true) return { force: false, forceConflicts: false, clientSideApply: true };
      if (!force) return { force: false, clientSideApply: false };
      return v4
        ? { force: false, forceConflicts: true, clientSideApply: false }
        : { force: true, clientSideApply: false };
    },
  };
}
