// Child processes for the chaos suite: run a command to completion (the tests' run(), re-exported), and find a
// process group's members in /proc. Used by chaos/kit/plane.ts, chaos/kit/operator.ts and the scenarios.

export { groupMembers } from '../../test/support/operator-process.ts';
export { run } from '../../test/support/run.ts';
