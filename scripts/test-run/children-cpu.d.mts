/** See children-cpu.mjs. */
export function reapedChildrenCpuMs(): number;
