/** Text columns cannot hold NUL; query copies show it as U+FFFD (the exact value is in the JSON columns). */
export function queryCopy(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}
