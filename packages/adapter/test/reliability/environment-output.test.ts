import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runBuiltScript } from '../support/run-built-script.js';

// Issue 10, observation 3: OPENAI_LOG=debug made the SDK print response headers and bodies, so a
// server echoing the key got it into logs. Here a child process runs calls (answered, retried,
// failing with an echo of the key, a model listing) under every OPENAI_* variable the SDK reads
// and under DEBUG / NODE_DEBUG settings; the canary key appears in none of its output, and the
// wire carries only the headers Switchboard builds.

const CANARY = `sk-canary-${randomUUID()}`;

const everyOpenAiVariable = {
  OPENAI_API_KEY: CANARY,
  OPENAI_ADMIN_KEY: CANARY,
  OPENAI_BASE_URL: 'http://127.0.0.1:9/canary',
  OPENAI_ORG_ID: 'canary-org',
  OPENAI_PROJECT_ID: 'canary-project',
  OPENAI_WEBHOOK_SECRET: CANARY,
  OPENAI_CUSTOM_HEADERS: `Authorization: Bearer ${CANARY}-other\nX-Canary: ${CANARY}`,
};

describe('a process calling through OpenAITransport (issue 10.3)', () => {
  it.each([
    [
      'every OPENAI_* variable with OPENAI_LOG=debug and DEBUG=*',
      { ...everyOpenAiVariable, OPENAI_LOG: 'debug', DEBUG: '*' },
    ],
    [
      'OPENAI_LOG=info and NODE_DEBUG for http, net and fetch',
      { ...everyOpenAiVariable, OPENAI_LOG: 'info', NODE_DEBUG: 'http,net,fetch,undici' },
    ],
  ])(
    'prints the key nowhere under %s, and sends only its own headers',
    async (_, env) => {
      const { code, stdout, stderr } = await runBuiltScript('call-under-env.mjs', {
        args: [CANARY],
        env: { PATH: process.env.PATH ?? '', ...env },
        boundMs: 30_000,
      });
      const output = `${stdout}\n${stderr}`;
      expect(output).not.toContain(CANARY);
      expect(output).not.toMatch(/canary-(org|project)/);
      expect(code).toBe(0);
      const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
      expect(summary).toMatchObject({
        answered: 'resolved',
        retried: 'resolved',
        echoed: 'bad_request',
        models: ['primary-flash', 'primary-v4-pro'],
      });
      for (const headers of summary.headers) {
        expect(
          headers.filter(
            (name: string) =>
              ![
                'connection',
                'content-length',
                'host',
                'accept-encoding',
                'accept-language',
                'sec-fetch-mode',
              ].includes(name),
          ),
        ).toEqual(
          expect.arrayContaining([
            'accept',
            'authorization',
            'user-agent',
            'x-stainless-retry-count',
            'x-stainless-timeout',
          ]),
        );
        expect(headers).not.toContain('x-canary');
        expect(headers).not.toContain('openai-organization');
      }
    },
    60_000,
  );
});
