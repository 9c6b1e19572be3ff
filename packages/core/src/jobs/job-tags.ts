import Joi from 'joi';

/**
 * Keys and tags of jobs (docs/JOBS-AS-CODE.md). A key names a job in an apply document and is
 * unique in its workspace; tags group jobs for list filters and pause or resume by tag. Tags are a
 * set: they are stored sorted and without repeats, so `[b, a]` and `[a, b, a]` are the same tags.
 */

export const JOB_KEY_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,127}$/;
export const TAG_PATTERN = /^[a-z0-9][a-z0-9_.:-]{0,62}$/;
export const MAX_TAGS_PER_JOB = 20;

export const jobKeySchema = Joi.string().pattern(JOB_KEY_PATTERN).messages({
  'string.pattern.base': 'must be 1 to 128 characters of a-z, 0-9, "_", "." and "-", starting with a letter or digit',
});

export const tagSchema = Joi.string().pattern(TAG_PATTERN).messages({
  'string.pattern.base': 'must be 1 to 63 characters of a-z, 0-9, "_", ".", ":" and "-", starting with a letter or digit',
});

/** Sorted, without repeats: the one form tags are stored and compared in. */
export const normalTags = (tags: readonly string[]): string[] => [...new Set(tags)].sort();

export const tagsSchema = Joi.array().items(tagSchema).max(MAX_TAGS_PER_JOB).custom((tags: string[]) => normalTags(tags));
