/**
 * Jest transform for dependencies published as ES modules only (commander 15): esbuild turns
 * them into CommonJS for Jest's module runtime, which loads ESM only with
 * --experimental-vm-modules. Node itself loads them natively (require(esm)), so this is for tests only.
 */
const { transformSync } = require('esbuild');

module.exports = {
  process(source, path) {
    const { code, map } = transformSync(source, {
      format: 'cjs',
      loader: 'js',
      sourcefile: path,
      sourcemap: 'inline',
      target: 'node20',
    });
    return { code, map };
  },
};
