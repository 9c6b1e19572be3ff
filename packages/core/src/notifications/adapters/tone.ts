import type { Tone } from '../summarize-message.js';

/** How each format marks a message's tone: green for success and recovery, red for failure and down. */
export const TONE_EMOJI: Record<Tone, string> = { success: '✅', failure: '🔴', warning: '⏸️' };
export const TONE_COLOR: Record<Tone, number> = { success: 0x2da44e, failure: 0xcf222e, warning: 0xbf8700 };
export const toneHex = (tone: Tone) => `#${TONE_COLOR[tone].toString(16).padStart(6, '0')}`;
