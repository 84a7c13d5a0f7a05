#!/usr/bin/env node
// Prints docs/configuration.md from the services' config schemas (built dist): `node scripts/config-reference.js > docs/configuration.md`.
const path = require('node:path');
const { readdirSync, existsSync } = require('node:fs');

const root = path.join(__dirname, '..');

/** Standalone first, then the fleet services in alphabetical order. */
function services() {
  const names = readdirSync(path.join(root, 'services')).filter((name) => existsSync(path.join(root, 'services', name, 'src', 'config.ts')));
  return ['standalone', ...names.filter((name) => name !== 'standalone').sort()];
}

function schemaOf(service, load) {
  const module = load(path.join(root, 'services', service, service === 'standalone' ? 'src/config' : 'src/config'));
  const schemas = Object.values(module).filter((value) => value && typeof value === 'object' && 'properties' in value);
  return schemas[0];
}

function defaultOf(property) {
  if (property.default === undefined) return '';
  return `\`${property.default === '' ? '""' : String(property.default)}\``;
}

/** What the schema holds a value to beyond its description: a length, a range. */
function limitsOf(property) {
  const limits = [];
  if (property.minLength !== undefined) limits.push(`At least ${property.minLength} characters.`);
  if (property.minimum !== undefined && property.maximum !== undefined) limits.push(`From ${property.minimum} to ${property.maximum}.`);
  else if (property.minimum !== undefined) limits.push(`At least ${property.minimum}.`);
  return limits;
}

function reference(load) {
  const lines = [
    '# Configuration',
    '',
    'Every service reads its configuration from environment variables once, at startup, and refuses to start with a',
    'message naming the variable when one is missing or malformed. `make start` needs none of them.',
    '',
    'This page is generated from the config schemas (`node scripts/config-reference.js > docs/configuration.md`);',
    'a test fails when it is out of date.',
  ];
  for (const service of services()) {
    const schema = schemaOf(service, load);
    const required = new Set(schema.required ?? []);
    lines.push('', `## ${service}`, '', '| Variable | Default | Description |', '|---|---|---|');
    for (const [name, property] of Object.entries(schema.properties)) {
      const shown = property.default !== undefined ? defaultOf(property) : required.has(name) ? '**required**' : '';
      const text = [property.description ?? '', ...limitsOf(property)].filter(Boolean).join(' ');
      lines.push(`| \`${name}\` | ${shown} | ${text.replace(/\|/g, '\\|')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

module.exports = { reference };

if (require.main === module) {
  process.stdout.write(reference((file) => require(file.replace(`${path.sep}src${path.sep}`, `${path.sep}dist${path.sep}`))));
}
