import { Type } from '@sinclair/typebox';
import { clickhouseConfig } from '@tlm/analytics-store';
import { jwtConfig, keyAccessConfig } from '@tlm/auth';
import { kafkaConfig } from '@tlm/bus';
import { httpConfig } from '@tlm/core';
import { postgresConfig } from '@tlm/metadata-store';

/** The AI provider: the built-in translator unless all three variables name an OpenAI-compatible endpoint. */
export const aiProviderConfig = {
  AI_BASE_URL: Type.Optional(Type.String({ format: 'uri', description: 'OpenAI-compatible API base URL, e.g. https://api.openai.com/v1.' })),
  AI_API_KEY: Type.Optional(Type.String({ secret: true, description: 'Bearer key of the AI provider.' })),
  AI_MODEL: Type.Optional(Type.String({ description: 'Model name sent to the AI provider.' })),
  AI_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 20_000, description: 'How long a call to the AI provider may take.' }),
};

/** Fleet configuration of the AI service (natural language to GQL, chat). */
export const AiConfig = Type.Object({
  ...httpConfig,
  ...postgresConfig,
  ...clickhouseConfig,
  ...kafkaConfig,
  ...keyAccessConfig,
  ...jwtConfig,
  ...aiProviderConfig,
});
