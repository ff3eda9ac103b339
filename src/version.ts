import { readFileSync } from 'node:fs';

/** midpack's one version string: package.json's (CLI --version, manifest midpack_version). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
