// Progress lines for the bootstrap: one prefix, to stderr, so `npm run dev` output stays readable.
export function step(message) {
  process.stderr.write(`[bootstrap] ${message}\n`);
}
