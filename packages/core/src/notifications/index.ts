// What other packages may use of notifications/; the other modules here are internal to @cronsvc/core.
export { decryptCredentials } from './channel-credentials.js';
export { type ChannelRule, listChannelRules } from './channel-rules.js';
export { deleteChannel, findChannel, listChannels, serializeChannel } from './channel-store.js';
export { createMailer, type Mailer } from './mailer.js';
export { relayEvents } from './relay-events.js';
export { createRule, deleteRule, listRules, type RuleOwner, serializeRule } from './rules.js';
export { createChannel, updateChannel } from './save-channel.js';
export { SEND_TIMEOUT_MS } from './send-message.js';
export { testChannel } from './test-channel.js';
export { getRuleById, pruneSnoozeTokens, snoozeByLink, snoozeLinkView, snoozeRule, snoozeRuleUntilUnsnoozed, snoozeTokenKnown, UNTIL_UNSNOOZED, unsnoozeRule } from './snooze.js';
