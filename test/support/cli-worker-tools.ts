// A tools module as a user hands it to `tool-contract worker --tools <module>`: its export `tools` is an array of
// tools (a ToolRegistry works too). The order tool answers from memory, stamped with the time of the call.
import { goodOrderOutput, orderTool } from './tools.js';

export const tools = [orderTool(() => Promise.resolve(goodOrderOutput(new Date().toISOString())))];
