/** Error codes and statuses of SPEC.md "Errors" plus the additions in DECISIONS.md; the only place statuses live. */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'QUOTA_EXCEEDED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'WRONG_REGION'
  | 'RATE_LIMITED'
  | 'MAIL_NOT_CONFIGURED'
  | 'INTERNAL_ERROR';

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** Invalid request body or a GQL parse error. */
export const validationError = (message: string, details?: ErrorDetails) =>
  new ApiError(400, 'VALIDATION_ERROR', message, details);
/** A well-formed request that cannot be carried out, e.g. a GQL query over an unknown source. */
export const unprocessable = (message: string, details?: ErrorDetails) =>
  new ApiError(422, 'VALIDATION_ERROR', message, details);
export const unauthorized = (message = 'missing or invalid credentials') => new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (message = 'insufficient permissions', details?: ErrorDetails) =>
  new ApiError(403, 'FORBIDDEN', message, details);
export const notFound = (message = 'not found') => new ApiError(404, 'NOT_FOUND', message);
export const conflict = (message: string, details?: ErrorDetails) => new ApiError(409, 'CONFLICT', message, details);
export const quotaExceeded = (message: string, details: ErrorDetails) =>
  new ApiError(402, 'QUOTA_EXCEEDED', message, details);
export const payloadTooLarge = (message: string) => new ApiError(413, 'PAYLOAD_TOO_LARGE', message);
/** A body in a format the endpoint does not read, e.g. OTLP protobuf where only OTLP JSON is taken. */
export const unsupportedMediaType = (message: string) => new ApiError(415, 'VALIDATION_ERROR', message);
/** A relay to another region's gateway that got no answer (502, as the fleet gateway answers for a service). */
export const regionUnreachable = (region: string) => new ApiError(502, 'INTERNAL_ERROR', `the ${region} region did not answer`);

export const wrongRegion = (region: string) =>
  new ApiError(421, 'WRONG_REGION', `this key belongs to region '${region}', which this deployment cannot reach`, {
    region,
  });
/** A sign-up for a region this deployment does not serve: with that region's address when REGION_URLS names it. */
export const signupInOtherRegion = (region: string, served: string, url: string | undefined) =>
  new ApiError(
    421,
    'WRONG_REGION',
    url ? `this deployment serves region '${served}'; sign up for region '${region}' at ${url}` : `this deployment serves region '${served}', not '${region}'`,
    url ? { region, url } : { region },
  );
export const rateLimited = (retryAfterSeconds: number, headers: Record<string, string> = {}, message = 'too many requests in a second') =>
  new ApiError(429, 'RATE_LIMITED', message, undefined, {
    'Retry-After': String(retryAfterSeconds),
    ...headers,
  });
/** A mail the request needs (a password reset) cannot be sent: the server has no SMTP_URL. */
export const mailNotConfigured = () =>
  new ApiError(503, 'MAIL_NOT_CONFIGURED', 'this server cannot send mail (SMTP_URL is not set); ask its operator');
export const internalError = () => new ApiError(500, 'INTERNAL_ERROR', 'internal error');
