import { globalOptionHint, globalOptionsFirst } from '../src/global-options.js';

describe('global options given after the command', () => {
  it('moves --url and --token, with their values, in front of the command', () => {
    expect(globalOptionsFirst(['jobs', 'list', '--url', 'http://cron:3000', '--limit', '5', '--token=t'])).toEqual([
      '--url', 'http://cron:3000', '--token=t', 'jobs', 'list', '--limit', '5',
    ]);
  });

  it('says where the option goes, with the line rewritten and quoted for a shell', () => {
    const hint = globalOptionHint("error: unknown option '--url'\n", ['jobs', 'list', '--name', 'a b', '--url', 'http://cron:3000']);
    expect(hint).toBe("--url is an option of cronsvc itself: it goes before the command, as in\n  cronsvc --url http://cron:3000 jobs list --name 'a b'\n");
  });

  it('adds nothing to other errors', () => {
    expect(globalOptionHint("error: unknown option '--urls'\n", ['jobs', 'list', '--urls'])).toBe('');
    expect(globalOptionHint("error: unknown command 'frobnicate'\n", ['frobnicate'])).toBe('');
  });
});
