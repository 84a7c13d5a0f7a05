import { ConfigError } from '@tlm/core';
import { OpenAiTranslator } from './openai';
import { translatorFromConfig } from './provider';
import { RuleTranslator } from './translator';

describe('translatorFromConfig', () => {
  it('uses the built-in translator when no AI_ variable is set', () => {
    expect(translatorFromConfig({ AI_TIMEOUT_MS: 20_000 })).toBeInstanceOf(RuleTranslator);
  });

  it('uses the OpenAI-compatible provider when AI_BASE_URL, AI_API_KEY and AI_MODEL are set', () => {
    const config = { AI_BASE_URL: 'https://api.example.com/v1', AI_API_KEY: 'sk-test', AI_MODEL: 'gql-model', AI_TIMEOUT_MS: 20_000 };
    expect(translatorFromConfig(config)).toBeInstanceOf(OpenAiTranslator);
  });

  it('refuses a provider configured in part, naming the variables that are missing', () => {
    const partial = () => translatorFromConfig({ AI_BASE_URL: 'https://api.example.com/v1', AI_API_KEY: 'sk-test', AI_TIMEOUT_MS: 20_000 });
    expect(partial).toThrow(ConfigError);
    expect(partial).toThrow('invalid configuration: AI_MODEL is required when any of AI_BASE_URL, AI_API_KEY, AI_MODEL is set');
    expect(() => translatorFromConfig({ AI_MODEL: 'gql-model', AI_TIMEOUT_MS: 20_000 })).toThrow(
      'invalid configuration: AI_BASE_URL is required; AI_API_KEY is required when any of AI_BASE_URL, AI_API_KEY, AI_MODEL is set',
    );
  });
});
