import { describe, expect, it } from 'vitest';
import { readVariable } from './environment.js';

describe('readVariable', () => {
  describe('set variables', () => {
    it('reads the value, trimmed', () => {
      expect(readVariable({ NAME: ' value\n' }, 'NAME')).toBe('value');
    });
  });

  describe('unset variables', () => {
    it('counts missing, empty and blank values as unset', () => {
      const environment = { EMPTY: '', BLANK: '  ', UNDEFINED: undefined };
      expect(readVariable(environment, 'MISSING')).toBeUndefined();
      expect(readVariable(environment, 'EMPTY')).toBeUndefined();
      expect(readVariable(environment, 'BLANK')).toBeUndefined();
      expect(readVariable(environment, 'UNDEFINED')).toBeUndefined();
    });

    it('never reads a key inherited from Object.prototype', () => {
      expect(readVariable({}, 'toString')).toBeUndefined();
    });
  });
});
