// The public surface of the package. Everything not exported here is internal and may change without notice.
export { VERSION } from './version.js';
