import { describe, expect, it } from 'vitest';
import { isModelRejection, supportedModels } from './supported-models.js';

const platformMessage =
  "Model 'primary-v4.1-flash' is not supported. Supported API model names: primary-flash, primary-v4-pro";

describe('supportedModels', () => {
  describe('with the platform message of spec 7', () => {
    it('lists the names after "model names:"', () => {
      expect(supportedModels(platformMessage)).toEqual(['primary-flash', 'primary-v4-pro']);
    });
  });

  describe('with other spellings', () => {
    it.each([
      ['backticks and a trailing period', 'Supported model names: `primary-flash`, `primary-v4-pro`.'],
      ['quotes', `Supported model names: "primary-flash", 'primary-v4-pro'`],
      ['spaces only', 'model names: primary-flash primary-v4-pro'],
      ['an "and"', 'Supported model names: primary-flash and primary-v4-pro'],
      ['a sentence after the list', 'Supported model names: primary-flash, primary-v4-pro. See the docs.'],
    ])('tolerates %s', (_, message) => {
      expect(supportedModels(message)).toEqual(['primary-flash', 'primary-v4-pro']);
    });

    it('keeps a period inside an id', () => {
      expect(supportedModels('model names: primary-v4.1-flash.')).toEqual(['primary-v4.1-flash']);
    });

    it('gives an empty list when the message lists no names', () => {
      expect(supportedModels('Model not found')).toEqual([]);
    });
  });
});

describe('isModelRejection', () => {
  describe('with status 400', () => {
    it('recognises the code model_not_found', () => {
      expect(isModelRejection(400, 'model_not_found', null, 'no')).toBe(true);
    });

    it('recognises the param model', () => {
      expect(isModelRejection(400, null, 'model', 'no')).toBe(true);
    });

    it('recognises a message that lists supported model names', () => {
      expect(isModelRejection(400, undefined, undefined, platformMessage)).toBe(true);
    });

    it('does not take any other 400 for a model rejection', () => {
      expect(isModelRejection(400, 'invalid_value', 'messages', 'messages must not be empty')).toBe(false);
    });
  });

  describe('with another status', () => {
    it('never reports a model rejection', () => {
      expect(isModelRejection(404, 'model_not_found', 'model', platformMessage)).toBe(false);
    });
  });
});

describe('the other wordings of the platform (issue 10)', () => {
  it('reads "The supported API model names are A or B, but you passed C." as exactly [A, B]', () => {
    const message =
      'The supported API model names are primary-flash or primary-v4-pro, but you passed primary-x.';
    expect(supportedModels(message)).toEqual(['primary-flash', 'primary-v4-pro']);
    expect(isModelRejection(400, 'invalid_request_error', null, message)).toBe(true);
  });

  it('recognises "Model Not Exist" as a rejection listing no names', () => {
    expect(isModelRejection(400, 'invalid_request_error', null, 'Model Not Exist')).toBe(true);
    expect(supportedModels('Model Not Exist')).toEqual([]);
  });
});
