// Memory figures of a process from /proc, for bench/ (its phases' RSS) and chaos/ (the soak's RSS). Reads only;
// never signals or starts a process.
import { readFileSync } from 'node:fs';

/** VmRSS (or another Vm* line) of `pid`, in MiB. */
export function memMiB(pid: number, field = 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? Number.NaN) / 1024;
}
