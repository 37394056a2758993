// Names stored in history are defined once, in the sandbox-safe `workflows/names.ts` (workflow code may not import
// src/temporal); worker and client code read them from here.
export * from '../../workflows/names.js';
