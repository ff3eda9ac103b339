/**
 * hyparquet and its compressors, imported on first use: 43 modules, about 50 ms of CPU in every
 * thread that imports the readers (the main thread and each prepare or pack worker), where most
 * runs read no Parquet.
 */
export type Hyparquet = typeof import('hyparquet') & { compressors: typeof import('hyparquet-compressors').compressors };

let loaded: Promise<Hyparquet> | undefined;

export function hyparquet(): Promise<Hyparquet> {
  loaded ??= Promise.all([import('hyparquet'), import('hyparquet-compressors')]).then(([h, c]) => ({ ...h, compressors: c.compressors }));
  return loaded;
}
