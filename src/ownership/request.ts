// What the post-renderer hands the operator for one helm install or upgrade: the per-call arguments (the CR's
// identity, never values) and the rendered manifest. Types only; shared by the FIFO server, the renderer and the
// manager.

export interface PostRenderRequest {
  /** The per-call arguments the reconciler gave helm (`--post-renderer-args`). */
  readonly args: readonly string[];
  readonly manifest: string;
}
