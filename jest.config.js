// Tests run on the TypeScript sources: workspace packages are mapped to their src/index.ts, so no build is
// needed between an edit and a test run (`make test` still builds first, to check the entry points compile).
const fs = require('node:fs');
const path = require('node:path');

const moduleNameMapper = {};
for (const group of ['packages', 'services']) {
  for (const name of fs.readdirSync(path.join(__dirname, group))) {
    const manifest = path.join(__dirname, group, name, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    moduleNameMapper[`^${require(manifest).name}$`] = `<rootDir>/${group}/${name}/src/index.ts`;
  }
}

// Helpers a unit suite may take without loading the whole testkit (and the server it starts).
moduleNameMapper['^@tlm/testkit/random$'] = '<rootDir>/packages/testkit/src/random.ts';
moduleNameMapper['^@tlm/testkit/metadata$'] = '<rootDir>/packages/testkit/src/metadataTemplate.ts';

module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{packages,services}/*/{src,test}/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  moduleNameMapper,
  testTimeout: 60_000,
  maxWorkers: 2,
};
