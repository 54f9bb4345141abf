import type { ChatResponse, CompleteRequest } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { ScriptedChatClient } from './scripted-chat-client.js';
import { scriptedClient } from './scripted-client.js';
import { SCRIPTED_FLAGS } from './scripted-flags.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hunt' }] };

async function run(flag: string, calls: number): Promise<ChatResponse[]> {
  const client = scriptedClient(flag);
  const responses: ChatResponse[] = [];
  for (let call = 0; call < calls; call += 1) responses.push(await client.complete(request));
  return responses;
}

function findingsOf(response: ChatResponse | undefined): Array<Record<string, unknown>> {
  const findings: unknown = JSON.parse(response?.content ?? 'null');
  expect(Array.isArray(findings)).toBe(true);
  return findings as Array<Record<string, unknown>>;
}

function expectGrepTurn(response: ChatResponse | undefined): void {
  expect(response?.content).toBeNull();
  expect(response?.toolCalls).toHaveLength(1);
  const [call] = response?.toolCalls ?? [];
  expect(call?.name).toBe('grep_repository');
  expect(typeof call?.arguments.pattern).toBe('string');
  expect(call?.id).not.toBe('');
}

describe('scriptedClient', () => {
  describe.each(['scripted', 'script'])('flag %s', (flag) => {
    it('makes one repository grep, then answers with a JSON array of findings', async () => {
      const [first, second] = await run(flag, 2);
      expectGrepTurn(first);
      expect(second?.toolCalls).toEqual([]);
      const findings = findingsOf(second);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.every((finding) => finding.snippet === undefined)).toBe(true);
    });

    it("answers '' once the script is used up", async () => {
      const responses = await run(flag, 3);
      expect(responses[2]?.content).toBe('');
    });
  });

  describe.each(['dump', 'dump-only'])('flag %s', (flag) => {
    it('answers with the findings JSON at once, with no tool call', async () => {
      const [first, second] = await run(flag, 2);
      expect(first?.toolCalls).toEqual([]);
      expect(findingsOf(first).length).toBeGreaterThan(0);
      expect(second?.content).toBe('');
    });
  });

  describe.each(['unsafe', 'unsafe-snippet'])('flag %s', (flag) => {
    it('makes the grep, then answers with findings whose item carries an unsafe snippet', async () => {
      const [first, second] = await run(flag, 2);
      expectGrepTurn(first);
      const [finding] = findingsOf(second);
      expect(typeof finding?.snippet).toBe('string');
      expect(finding?.snippet).toMatch(/execSync\(.*request\./);
    });
  });

  describe('flag lookup', () => {
    it('lowercases and trims the flag', async () => {
      const [first] = await run('  Dump-Only\n', 1);
      expect(findingsOf(first).length).toBeGreaterThan(0);
    });

    it('builds a client for every flag of SCRIPTED_FLAGS', () => {
      for (const flag of SCRIPTED_FLAGS) expect(scriptedClient(flag)).toBeInstanceOf(ScriptedChatClient);
    });

    it('gives a fresh client with its own calls on every call', async () => {
      const first = scriptedClient('dump');
      await first.complete(request);
      const second = scriptedClient('dump');
      expect(second.calls).toEqual([]);
      expect(findingsOf(await second.complete(request)).length).toBeGreaterThan(0);
    });

    it('throws a RangeError naming the flag and listing the valid flags for an unknown flag', () => {
      expect(() => scriptedClient('replay')).toThrow(RangeError);
      expect(() => scriptedClient('replay')).toThrow(
        'unknown scripted client flag "replay": expected one of scripted, script, dump, dump-only, unsafe, unsafe-snippet',
      );
    });

    it('throws for the empty flag', () => {
      expect(() => scriptedClient('  ')).toThrow(/unknown scripted client flag/);
    });
  });
});
