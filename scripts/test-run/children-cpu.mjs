// How much CPU a process's finished children used, read where Node does not tell (it reports its own only).
// Plain JavaScript: registrations.mjs imports it, for the reason given there.
import { readFileSync } from 'node:fs';

/** CPU time of the reaped children (`cutime` + `cstime` of /proc/self/stat); 0 where there is no /proc. */
export function reapedChildrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100; // USER_HZ, which Linux fixes at 100 for /proc whatever the kernel's own tick
    return Math.round(((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond);
  } catch {
    return 0;
  }
}
