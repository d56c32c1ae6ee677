import { readArgs } from './config';

describe('readArgs (the job command line)', () => {
  it('defaults: no batch size (the job reads its customOptions), the spec cap of 1,000,000 rows per tenant, no dry run', () => {
    expect(readArgs([])).toEqual({ batchSize: undefined, limit: 1_000_000, dryRun: false });
  });

  it('takes --batch-size, --limit and --dry-run', () => {
    expect(readArgs(['--batch-size=250', '--limit', '500', '--dry-run'])).toEqual({
      batchSize: 250,
      limit: 500,
      dryRun: true,
    });
  });

  it.each([
    [['--limit=1000001'], /--limit: /],
    [['--limit=0'], /--limit: /],
    [['--batch-size=100001'], /--batch-size: /],
    [['--batch-size=abc'], /--batch-size: /],
    [['--other'], /Unknown option/],
  ])('refuses %j', (argv, message) => {
    expect(() => readArgs(argv)).toThrow(message);
  });
});
