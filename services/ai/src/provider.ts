import { ConfigError, type Logger } from '@tlm/core';
import { OpenAiTranslator } from './openai';
import { RuleTranslator, type Translator } from './translator';

const PROVIDER_VARIABLES = ['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'] as const;

/**
 * DECISIONS.md "AI": the built-in translator by default; an OpenAI-compatible endpoint when all three are set. Some
 * but not all of them set is a mistake, refused at startup rather than quietly answered by the built-in translator. The
 * built-in translator answers when the endpoint fails or times out; `logger` hears of each failure.
 */
export function translatorFromConfig(
  config: { AI_BASE_URL?: string; AI_API_KEY?: string; AI_MODEL?: string; AI_TIMEOUT_MS: number },
  logger?: Logger,
): Translator {
  const missing = PROVIDER_VARIABLES.filter((name) => !config[name]);
  if (missing.length === PROVIDER_VARIABLES.length) return new RuleTranslator();
  if (missing.length > 0) {
    throw new ConfigError(`invalid configuration: ${missing.map((name) => `${name} is required`).join('; ')} when any of ${PROVIDER_VARIABLES.join(', ')} is set`);
  }
  return new OpenAiTranslator(
    { baseUrl: config.AI_BASE_URL!, apiKey: config.AI_API_KEY!, model: config.AI_MODEL!, timeoutMs: config.AI_TIMEOUT_MS },
    new RuleTranslator(),
    (error) => logger?.warn({ err: error }, 'the AI provider failed; the built-in translator answered'),
  );
}
