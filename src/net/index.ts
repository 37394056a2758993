// The `./net` entry point: outbound HTTP for tool handlers that must only ever reach the public internet.
export { fetchPublic, type PublicFetchOptions, type PublicFetchResponse } from './public-fetch.js';
