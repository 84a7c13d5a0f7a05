import { OpenAiTranslator } from './openai';
import { RuleTranslator, type Translator } from './translator';

/** DECISIONS.md "AI": the built-in translator by default; an OpenAI-compatible endpoint when all three are set. */
export function translatorFromConfig(config: { AI_BASE_URL?: string; AI_API_KEY?: string; AI_MODEL?: string; AI_TIMEOUT_MS: number }): Translator {
  if (config.AI_BASE_URL && config.AI_API_KEY && config.AI_MODEL) {
    return new OpenAiTranslator({ baseUrl: config.AI_BASE_URL, apiKey: config.AI_API_KEY, model: config.AI_MODEL, timeoutMs: config.AI_TIMEOUT_MS });
  }
  return new RuleTranslator();
}
