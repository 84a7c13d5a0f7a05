import { loadConfig } from '@tlm/core';
import { StandaloneConfig } from './config';

describe('StandaloneConfig', () => {
  it('defaults the DuckDB checkpoint threshold to 256MB and takes a size in bytes, kB, MB or GB', () => {
    expect(loadConfig(StandaloneConfig, {}).DUCKDB_CHECKPOINT_THRESHOLD).toBe('256MB');
    expect(loadConfig(StandaloneConfig, { DUCKDB_CHECKPOINT_THRESHOLD: '1.5GB' }).DUCKDB_CHECKPOINT_THRESHOLD).toBe('1.5GB');
  });

  it('refuses a checkpoint threshold that is not a size, naming the variable', () => {
    expect(() => loadConfig(StandaloneConfig, { DUCKDB_CHECKPOINT_THRESHOLD: 'lots' })).toThrow(
      /^invalid configuration: DUCKDB_CHECKPOINT_THRESHOLD must match pattern/,
    );
  });

  it('keeps alert webhooks off private networks unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
    expect(loadConfig(StandaloneConfig, {}).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(loadConfig(StandaloneConfig, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
  });
});
