// One merge as its own process, so its time and peak memory compare with qpdf's, measured the same way.
import { readFileSync, writeFileSync } from 'node:fs';
import { mergePdfs } from '../../src/pdf/merge';

async function main(): Promise<void> {
  const [out, ...inputs] = process.argv.slice(2);
  writeFileSync(out!, await mergePdfs(inputs.map((f) => readFileSync(f))));
}

void main();
