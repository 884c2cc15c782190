import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/lib/csv.js';

describe('csvField', () => {
  it('makes text that a spreadsheet would run start with an apostrophe', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r', '|', '%']) {
      const cell = csvField(`${start}cmd`);
      expect(cell.startsWith(`'${start}`) || cell.startsWith(`"'${start}`), JSON.stringify(start)).toBe(true);
    }
    expect(csvField('|calc.exe')).toBe("'|calc.exe");
    expect(csvField('%0A=1+1')).toBe("'%0A=1+1");
    expect(csvField('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
  });

  it('leaves other text as it is, quoting only what holds a quote, comma or line break', () => {
    expect(csvField('Plain = text | 100%')).toBe('Plain = text | 100%');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('')).toBe('');
  });
});
