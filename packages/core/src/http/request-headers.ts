import Joi from 'joi';

/**
 * Headers that frame the request or steer the connection. The service sets them itself, from the
 * body it actually sends: a job that could set Content-Length (or chunking, or Connection) could
 * make a target read part of its body as a second request on a kept-alive connection.
 */
export const SERVICE_SET_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'expect',
  'host',
]);

/** An HTTP token (RFC 9110 section 5.6.2), the only shape a field name may have. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a field value may hold: tab, visible ASCII, space and obs-text; no CR, LF, NUL or other controls. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export const MAX_HEADER_NAME_LENGTH = 200;
export const MAX_HEADER_VALUE_LENGTH = 8192;
export const MAX_HEADERS = 100;

const NAME_MESSAGE = `is not a valid header name: an HTTP token (letters, digits and !#$%&'*+-.^_\`|~) of at most ${MAX_HEADER_NAME_LENGTH} characters`;
const VALUE_MESSAGE = 'must not contain CR, LF, NUL or other control characters, or characters beyond U+00FF';
const SERVICE_SET_MESSAGE = 'may not be set: the service frames every request and manages its connections itself';

export const isServiceSetHeader = (name: string): boolean => SERVICE_SET_HEADERS.has(name.toLowerCase());
export const isValidHeaderName = (name: string): boolean => TOKEN.test(name);
export const isValidHeaderValue = (value: string): boolean => FIELD_VALUE.test(value);

/**
 * A map of request headers as a job (or a workflow step, or a notification channel) may set them.
 * Each problem is reported at the header's own path (`<map path>.<name>`).
 */
export const requestHeadersSchema = Joi.object()
  .pattern(Joi.string().insensitive().valid(...SERVICE_SET_HEADERS), Joi.any().forbidden().messages({ 'any.unknown': SERVICE_SET_MESSAGE }))
  .pattern(
    Joi.string().pattern(TOKEN).max(MAX_HEADER_NAME_LENGTH),
    Joi.string().max(MAX_HEADER_VALUE_LENGTH).pattern(FIELD_VALUE).messages({ 'string.pattern.base': VALUE_MESSAGE }),
  )
  .max(MAX_HEADERS)
  .messages({ 'object.unknown': NAME_MESSAGE });
