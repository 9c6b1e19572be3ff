/**
 * Every validation message in the service's own words. A problem is reported as
 * `<path>: <what is wrong>`: the path says which field, so a message never repeats it, and
 * none of the validation library's own phrasing ("must be a safe number", "fails to match the
 * required pattern") reaches a user. Every error code of the types the service's schemas use
 * is here, so a code added by a library upgrade fails messages.test.ts instead of leaking.
 *
 * `{{#limit}}` and the like are filled in from the error; `{if(...)}` picks singular or plural.
 */
const plural = (noun: string, count = '#limit') => `${noun}{if(${count} == 1, "", "s")}`;

export const MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  'any.custom': 'is not valid: {{#error.message}}',
  'any.default': 'could not be given its default value',
  'any.failover': 'could not be given its fallback value',
  'any.invalid': 'is not an allowed value',
  'any.only': 'must be {if(#valids.length == 1, "", "one of ")}{{#valids}}',
  'any.ref': 'refers to {{:#ref}}, which {{#reason}}',
  'any.required': 'is required',
  'any.unknown': 'is not allowed',

  'alternatives.all': 'does not match every required shape',
  'alternatives.any': 'is not valid',
  'alternatives.match': 'is not valid',
  'alternatives.one': 'matches more than one allowed shape',
  'alternatives.types': 'must be one of these types: {{#types}}',

  'array.base': 'must be an array',
  'array.excludes': 'holds a value that is not allowed',
  'array.hasKnown': 'does not hold a required item',
  'array.hasUnknown': 'does not hold a required item',
  'array.includes': 'holds an item of a type that is not allowed',
  'array.includesRequiredBoth': 'is missing required items',
  'array.includesRequiredKnowns': 'is missing required items',
  'array.includesRequiredUnknowns': 'is missing required items',
  'array.length': `must have exactly {{#limit}} ${plural('item')}`,
  'array.max': `must have at most {{#limit}} ${plural('item')}`,
  'array.min': `must have at least {{#limit}} ${plural('item')}`,
  'array.orderedLength': `must have at most {{#limit}} ${plural('item')}`,
  'array.sort': 'must be sorted',
  'array.sort.mismatching': 'cannot be sorted: its items are of different types',
  'array.sort.unsupported': 'cannot be sorted: its items are of a type that has no order',
  'array.sparse': 'must not have empty items',
  'array.unique': 'must not hold the same value twice',

  'boolean.base': 'must be true or false',

  'date.base': 'must be a valid date',
  'date.format': 'must be an ISO 8601 timestamp',
  // Parts of Joi's own date.format message, which the one above does not use.
  'date.format.iso': 'ISO 8601 timestamp',
  'date.format.javascript': 'timestamp or number of milliseconds',
  'date.format.unix': 'timestamp or number of seconds',
  'date.greater': 'must be after {{:#limit}}',
  'date.less': 'must be before {{:#limit}}',
  'date.max': 'must be at most {{:#limit}}',
  'date.min': 'must be at least {{:#limit}}',

  'number.base': 'must be a number',
  'number.greater': 'must be greater than {{#limit}}',
  'number.infinity': 'must be a finite number',
  'number.integer': 'must be a whole number',
  'number.less': 'must be less than {{#limit}}',
  'number.max': 'must be at most {{#limit}}',
  'number.min': 'must be at least {{#limit}}',
  'number.multiple': 'must be a multiple of {{#multiple}}',
  'number.negative': 'must be negative',
  'number.port': 'must be a port number (0 to 65535)',
  'number.positive': 'must be positive',
  'number.precision': `must have at most {{#limit}} decimal ${plural('place')}`,
  'number.unsafe': 'is out of range',

  'object.and': 'must have all of {{#present}} and {{#missing}} together',
  'object.assert': 'is not valid',
  'object.base': 'must be an object',
  'object.instance': 'must be an object of another kind',
  'object.length': `must have exactly {{#limit}} ${plural('field')}`,
  'object.max': `must have at most {{#limit}} ${plural('field')}`,
  'object.min': `must have at least {{#limit}} ${plural('field')}`,
  'object.missing': 'must have one of {{#peers}}',
  'object.nand': 'must not have {{#main}} together with {{#peers}}',
  'object.oxor': 'must have at most one of {{#peers}}',
  'object.pattern.match': 'has fields whose names are not valid',
  'object.refType': 'must be a reference',
  'object.regex': 'must be a regular expression',
  'object.rename.multiple': 'cannot rename {{:#from}}',
  'object.rename.override': 'cannot rename {{:#from}}: {{:#to}} is already there',
  'object.rename.proto': 'cannot rename {{:#from}}',
  'object.schema': 'must be a schema',
  'object.unknown': 'is not a known field',
  'object.with': 'needs {{#peer}} as well',
  'object.without': 'must not be given together with {{#peer}}',
  'object.xor': 'must have exactly one of {{#peers}}',

  'string.alphanum': 'must contain only letters and digits',
  'string.base': 'must be a string',
  'string.base64': 'must be base64',
  'string.creditCard': 'must be a card number',
  'string.dataUri': 'must be a data: URI',
  'string.domain': 'must be a domain name',
  'string.email': 'must be an email address',
  'string.empty': 'must not be empty',
  'string.guid': 'must be a UUID',
  'string.hex': 'must contain only hexadecimal digits',
  'string.hexAlign': 'must have an even number of hexadecimal digits',
  'string.hostname': 'must be a host name',
  'string.ip': 'must be an IP address',
  'string.ipVersion': 'must be an IP address ({{#version}})',
  'string.isoDate': 'must be an ISO 8601 timestamp, e.g. 2030-01-01T09:00:00Z',
  'string.isoDuration': 'must be an ISO 8601 duration',
  'string.length': `must be exactly {{#limit}} ${plural('character')} long`,
  'string.lowercase': 'must be in lower case',
  'string.max': `must be at most {{#limit}} ${plural('character')} long`,
  'string.min': `must be at least {{#limit}} ${plural('character')} long`,
  'string.normalize': 'must be Unicode text in {{#form}} form',
  'string.pattern.base': 'must match {{#regex}}',
  'string.pattern.invert.base': 'must not match {{#regex}}',
  'string.pattern.invert.name': 'must not be {{#name}}',
  'string.pattern.name': 'must be {{#name}}',
  'string.token': 'must contain only letters, digits and _',
  'string.trim': 'must not start or end with spaces',
  'string.uppercase': 'must be in upper case',
  'string.uri': 'must be an absolute URL',
  'string.uriCustomScheme': 'must be an absolute URL with the scheme {{#scheme}}',
  'string.uriRelativeOnly': 'must be a relative URL',
});

/**
 * Validation preferences that make every message read `<what is wrong>`: the messages above,
 * no label in front of them, and lists written `a, b` rather than `[a, b]`.
 */
export const MESSAGE_PREFERENCES = Object.freeze({
  messages: MESSAGES,
  errors: { label: false, wrap: { label: false, array: false } },
}) as { messages: Record<string, string>; errors: { label: false; wrap: { label: false; array: false } } };
