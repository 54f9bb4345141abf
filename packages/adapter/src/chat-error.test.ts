import { describe, expect, it } from 'vitest';
import { ChatError } from './chat-error.js';
import type { ChatErrorKind } from './chat-error-kind.js';
import { ModelRejectedError } from './model-rejected-error.js';

describe('ChatError', () => {
  describe('retryable', () => {
    it.each([408, 409, 429, 500, 502, 503, 599])('is true for status %i', (status) => {
      expect(new ChatError({ kind: 'bad_request', status, message: 'x' }).retryable).toBe(true);
    });

    it.each([400, 401, 403, 404, 422])('is false for status %i', (status) => {
      expect(new ChatError({ kind: 'bad_request', status, message: 'x' }).retryable).toBe(false);
    });

    it.each<ChatErrorKind>(['connection', 'timeout', 'rate_limited', 'server'])(
      'is true for kind %s without a status',
      (kind) => {
        expect(new ChatError({ kind, message: 'x' }).retryable).toBe(true);
      },
    );

    it.each<ChatErrorKind>(['bad_request', 'auth', 'bad_reply'])(
      'is false for kind %s without a status',
      (kind) => {
        expect(new ChatError({ kind, message: 'x' }).retryable).toBe(false);
      },
    );
  });

  describe('fields', () => {
    it('carries kind, status, message, name and cause', () => {
      const cause = new Error('underlying');
      const error = new ChatError({ kind: 'server', status: 500, message: 'broke', cause });
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({ kind: 'server', status: 500, message: 'broke', name: 'ChatError' });
      expect(error.cause).toBe(cause);
      expect(error.degradation).toBe(false);
    });

    it('has a null status when none is given', () => {
      expect(new ChatError({ kind: 'connection', message: 'x' }).status).toBeNull();
    });
  });

  describe('isInstance', () => {
    it('recognises its own instances and subclasses', () => {
      expect(ChatError.isInstance(new ChatError({ kind: 'auth', message: 'x' }))).toBe(true);
      expect(
        ChatError.isInstance(new ModelRejectedError({ message: 'x', model: 'm', supportedModels: [] })),
      ).toBe(true);
    });

    it('recognises an error from another copy of the package by its marker', () => {
      const foreign = Object.assign(new Error('x'), { [Symbol.for('switchboard.chat-error')]: true });
      expect(ChatError.isInstance(foreign)).toBe(true);
    });

    it.each([
      ['a plain error', new Error('x')],
      ['null', null],
      ['a string', 'ChatError'],
      ['an object with a false marker', { [Symbol.for('switchboard.chat-error')]: false }],
    ])('rejects %s', (_, value) => {
      expect(ChatError.isInstance(value)).toBe(false);
    });
  });
});

describe('ModelRejectedError', () => {
  describe('fields', () => {
    const error = new ModelRejectedError({
      message: 'refused',
      model: 'primary-v4.1-flash',
      supportedModels: ['primary-flash', 'primary-v4-pro'],
    });

    it('is a model_rejected ChatError with status 400 marked as a degradation', () => {
      expect(error).toBeInstanceOf(ChatError);
      expect(error).toMatchObject({
        kind: 'model_rejected',
        status: 400,
        degradation: true,
        retryable: false,
        name: 'ModelRejectedError',
        model: 'primary-v4.1-flash',
      });
      expect(error.supportedModels).toEqual(['primary-flash', 'primary-v4-pro']);
      expect(Object.isFrozen(error.supportedModels)).toBe(true);
    });
  });

  describe('isInstance', () => {
    it('rejects a ChatError of another kind', () => {
      expect(ModelRejectedError.isInstance(new ChatError({ kind: 'bad_request', message: 'x' }))).toBe(false);
    });

    it('recognises its own instances', () => {
      const error = new ModelRejectedError({ message: 'x', model: 'm', supportedModels: [] });
      expect(ModelRejectedError.isInstance(error)).toBe(true);
    });
  });
});
