import { keyValues, relativeTime, table, truncate, when } from '../../../cli/format';

const now = new Date('2026-11-21T15:00:00.000Z');

describe('tables', () => {
  const rows = [
    { id: 'con_1', name: 'CRM', n: 7 },
    { id: 'con_22', name: 'Billing receiver', n: 120 },
  ];

  it('align columns under their headers, two spaces apart, numbers right-aligned', () => {
    const text = table(rows, [
      { header: 'ID', value: (r) => r.id },
      { header: 'NAME', value: (r) => r.name },
      { header: 'N', value: (r) => r.n, align: 'right' },
    ]);
    expect(text).toBe(
      [
        'ID      NAME                N',
        'con_1   CRM                 7',
        'con_22  Billing receiver  120',
      ].join('\n'),
    );
  });

  it('show empty cells as "-", keep every row on one line and leave no trailing spaces', () => {
    const text = table(
      [
        { a: 'x', b: undefined as string | undefined },
        { a: 'two\nlines', b: '' },
      ],
      [
        { header: 'A', value: (r) => r.a },
        { header: 'B', value: (r) => r.b },
      ],
    );
    expect(text.split('\n')).toEqual(['A          B', 'x          -', 'two lines  -']);
  });

  it('measure width in characters, so an ellipsis does not shift a column', () => {
    const text = table(
      [{ a: 'abc…' }, { a: 'abcd' }],
      [
        { header: 'A', value: (r) => r.a },
        { header: 'B', value: () => '1' },
      ],
    );
    expect(text.split('\n').map((l) => l.indexOf('1'))).toEqual([-1, 6, 6]);
  });

  it('print only the header row when there are no rows', () => {
    expect(table([], [{ header: 'ID', value: () => 'x' }])).toBe('ID');
  });
});

describe('times', () => {
  it.each([
    ['2026-11-21T14:59:59.500Z', 'just now'],
    ['2026-11-21T14:59:15.000Z', '45s ago'],
    ['2026-11-21T14:57:00.000Z', '3m ago'],
    ['2026-11-21T12:00:00.000Z', '3h ago'],
    ['2026-11-18T15:00:00.000Z', '3d ago'],
    ['2026-11-21T15:00:04.000Z', 'in 4s'],
    ['not a date', 'unknown time'],
  ])('say %s as %s', (at, expected) => {
    expect(relativeTime(at, now)).toBe(expected);
  });

  it('show ISO and relative together', () => {
    expect(when('2026-11-21T14:57:00.000Z', now)).toBe('2026-11-21T14:57:00.000Z (3m ago)');
    expect(when(undefined, now)).toBeUndefined();
  });
});

describe('text', () => {
  it('aligns key/value blocks and drops missing values', () => {
    expect(
      keyValues([
        ['id', 'con_1'],
        ['application', 'app_1'],
        ['updated', undefined],
      ]),
    ).toBe('  id           con_1\n  application  app_1');
  });

  it('truncates long text with an ellipsis, on one line', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    expect(truncate('a\nb', 10)).toBe('a b');
  });
});
